package transport

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// genaiPerfPayloads reads the payloads of an inputs.json GenAI-Perf wrote
// (testdata/multimodal/README.md).
func genaiPerfPayloads(t *testing.T, name string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/multimodal/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Data []struct {
			Payload []map[string]any
		}
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, d := range in.Data {
		out = append(out, d.Payload[0])
	}
	if len(out) == 0 {
		t.Fatal("no payloads")
	}
	return out
}

// The prompt GenAI-Perf sent, read back out of its multimodal payload.
func promptOfGenAIPerf(t *testing.T, p map[string]any) Prompt {
	t.Helper()
	var prompt Prompt
	prompt.MaxTokens = int(p["max_tokens"].(float64))
	msg := p["messages"].([]any)[0].(map[string]any)
	for _, part := range msg["content"].([]any) {
		part := part.(map[string]any)
		switch part["type"] {
		case "text":
			prompt.Text = part["text"].(string)
		case "image_url":
			prompt.Images = append(prompt.Images, part["image_url"].(map[string]any)["url"].(string))
		case "input_audio":
			a := part["input_audio"].(map[string]any)
			prompt.Audio = append(prompt.Audio, AudioClip{Data: a["data"].(string), Format: a["format"].(string)})
		default:
			t.Fatalf("unknown part %v", part["type"])
		}
	}
	return prompt
}

// llmbench's multimodal chat body for GenAI-Perf's prompts is GenAI-Perf's
// own payload, as its converter wrote it, but for stream_options.
func TestMultimodalBodyEqualsGenAIPerfsOwn(t *testing.T) {
	for i, theirs := range genaiPerfPayloads(t, "genaiperf_multimodal_inputs.json") {
		p := promptOfGenAIPerf(t, theirs)
		if len(p.Images) != 2 || len(p.Audio) != 1 || p.Text == "" {
			t.Fatalf("payload %d: %d pictures, %d clips, text %q; want the fixture's 2, 1 and a text", i, len(p.Images), len(p.Audio), p.Text)
		}
		body := BodySpec{API: Chat, Model: "llava", Stream: true}.Body(p)
		var ours map[string]any
		if err := json.Unmarshal(body, &ours); err != nil {
			t.Fatal(err)
		}
		delete(ours, "stream_options")
		if !reflect.DeepEqual(ours, theirs) {
			t.Errorf("payload %d differs from GenAI-Perf's:\n ours   %.300v\n theirs %.300v", i, ours, theirs)
		}
	}
}

// llmbench's image-retrieval body for GenAI-Perf's pictures is GenAI-Perf's
// own payload.
func TestImageRetrievalBodyEqualsGenAIPerfsOwn(t *testing.T) {
	for i, theirs := range genaiPerfPayloads(t, "genaiperf_image_retrieval_inputs.json") {
		var p Prompt
		for _, in := range theirs["input"].([]any) {
			p.Images = append(p.Images, in.(map[string]any)["url"].(string))
		}
		var ours map[string]any
		if err := json.Unmarshal(BodySpec{API: ImageRetrieval, Model: "yolox"}.Body(p), &ours); err != nil {
			t.Fatal(err)
		}
		if len(p.Images) != 2 || !reflect.DeepEqual(ours, theirs) {
			t.Errorf("payload %d differs from GenAI-Perf's:\n ours   %.300v\n theirs %.300v", i, ours, theirs)
		}
	}
}
