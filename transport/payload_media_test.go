package transport

import (
	"encoding/json"
	"reflect"
	"testing"
)

// genaiPerfShape decodes a body for comparison with what GenAI-Perf's
// converters write: key order aside, the same JSON.
func genaiPerfShape(t *testing.T, body string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, body)
	}
	return v
}

// A multimodal chat body is GenAI-Perf's OPENAI_MULTIMODAL payload
// (openai_chat_completions_converter.py, _add_multi_modal_content): the
// text part, then the pictures as image_url parts, then the clips as
// input_audio parts with the format split off GenAI-Perf's "wav,<b64>"
// string. llmbench adds only stream_options (for usage counts).
func TestMultimodalChatBodyIsGenAIPerfs(t *testing.T) {
	spec := BodySpec{API: Chat, Model: "llava", Stream: true, Extra: []Field{{Key: "ignore_eos", Value: json.RawMessage(`true`)}}}
	p := Prompt{Text: `describe "this"`, MaxTokens: 12,
		Images: []string{"data:image/png;base64,iVBORw0KGgo=", "https://example.com/cat.jpeg"},
		Audio:  []AudioClip{{Data: "UklGRg==", Format: "wav"}}}
	got := string(spec.Body(p))
	want := `{"messages":[{"role":"user","content":[{"type":"text","text":"describe \"this\""},` +
		`{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},` +
		`{"type":"image_url","image_url":{"url":"https://example.com/cat.jpeg"}},` +
		`{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}],` +
		`"model":"llava","stream":true,"stream_options":{"include_usage":true},"max_tokens":12,"ignore_eos":true}`
	if got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
	// GenAI-Perf's payload for the same row, as its converter builds it
	// (model first; stream, max_tokens, then the extra inputs).
	genaiPerf := `{"model":"llava","messages":[{"role":"user","content":[` +
		`{"type":"text","text":"describe \"this\""},` +
		`{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},` +
		`{"type":"image_url","image_url":{"url":"https://example.com/cat.jpeg"}},` +
		`{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}],` +
		`"stream":true,"max_tokens":12,"ignore_eos":true}`
	ours := genaiPerfShape(t, got).(map[string]any)
	delete(ours, "stream_options")
	if theirs := genaiPerfShape(t, genaiPerf); !reflect.DeepEqual(ours, theirs) {
		t.Errorf("not GenAI-Perf's payload:\n ours   %v\n theirs %v", ours, theirs)
	}
}

// A text-only chat prompt keeps its string content: the parts list is
// only for prompts with media.
func TestTextChatBodyUnchanged(t *testing.T) {
	got := string(BodySpec{API: Chat, Model: "m"}.Body(Prompt{Text: "hi"}))
	if want := `{"messages":[{"role":"user","content":"hi"}],"model":"m"}`; got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
}

// A turn of pictures alone (an input-file line without text) has no
// text part, as GenAI-Perf's row without texts.
func TestPicturesAloneHaveNoTextPart(t *testing.T) {
	got := string(BodySpec{API: Chat, Model: "m"}.Body(Prompt{Images: []string{"https://h/a.png", "https://h/b.png"}}))
	want := `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://h/a.png"}},` +
		`{"type":"image_url","image_url":{"url":"https://h/b.png"}}]}],"model":"m"}`
	if got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
}

// Media go with the new user turn only, after the history.
func TestMultimodalTurnAfterHistory(t *testing.T) {
	got := string(BodySpec{API: Chat, Model: "m"}.Body(Prompt{Text: "and this?", System: "be brief",
		History: []Exchange{{User: "hi", Assistant: "hello"}}, Images: []string{"data:image/jpeg;base64,/9j/"}}))
	want := `{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},` +
		`{"role":"user","content":[{"type":"text","text":"and this?"},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,/9j/"}}]}],"model":"m"}`
	if got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
}

// The image-retrieval body is GenAI-Perf's IMAGE_RETRIEVAL payload
// (image_retrieval_converter.py): {"input": [{"type": "image_url", "url":
// ...}]} and the extra inputs, no model, no text, no stream.
func TestImageRetrievalBodyIsGenAIPerfs(t *testing.T) {
	spec := BodySpec{API: ImageRetrieval, Model: "nv-yolox", Stream: true, Extra: []Field{{Key: "threshold", Value: json.RawMessage(`0.5`)}}}
	got := string(spec.Body(Prompt{Text: "ignored", MaxTokens: 5, Images: []string{"data:image/png;base64,AAA=", "data:image/jpeg;base64,BBB="}}))
	want := `{"input":[{"type":"image_url","url":"data:image/png;base64,AAA="},{"type":"image_url","url":"data:image/jpeg;base64,BBB="}],"threshold":0.5}`
	if got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
	if ImageRetrieval.DefaultPath("m", false) != "/v1/infer" || !ImageRetrieval.Scores() || ImageRetrieval.ReportsUsage() {
		t.Error("image_retrieval: want path /v1/infer, a scores API without usage")
	}
	if api, err := ParseAPI("image_retrieval"); err != nil || api != ImageRetrieval {
		t.Errorf("ParseAPI(image_retrieval) = %q, %v", api, err)
	}
}
