package sim

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"net/http"
	"os"
	"strings"
	"testing"
)

// pictureURL is a data URL of a w×h picture in format.
func pictureURL(t *testing.T, w, h int, format string) string {
	t.Helper()
	var b bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var err error
	if format == "png" {
		err = png.Encode(&b, img)
	} else {
		err = jpeg.Encode(&b, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return "data:image/" + format + ";base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

// wavBase64 is a silent 16-bit mono WAV clip of frames samples at rate.
func wavBase64(rate, frames int) string {
	data := frames * 2
	b := []byte("RIFF")
	b = binary.LittleEndian.AppendUint32(b, uint32(36+data))
	b = append(b, "WAVEfmt "...)
	b = binary.LittleEndian.AppendUint32(b, 16)
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint32(b, uint32(rate))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate*2))
	b = binary.LittleEndian.AppendUint16(b, 2)
	b = binary.LittleEndian.AppendUint16(b, 16)
	b = append(b, "data"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(data))
	b = append(b, make([]byte, data)...)
	return base64.StdEncoding.EncodeToString(b)
}

// The sim counts a picture as its 14-px patches and a clip as 25 tokens a
// second, beside the text's words: "a b c" (3) + a 28×20 PNG (2·2 = 4) +
// a 336×336 JPEG (24·24 = 576) + a remote picture (576) + 0.2 s of WAV
// (5) + an MP3 of 32,000 bytes, 2 s at 128 kbit/s (50). The prompt's
// count is what its prefill time is computed from (job.go), so pictures
// and clips delay the first token as text does.
func TestMediaTokens(t *testing.T) {
	s := startSim(t, nil)
	mp3 := base64.StdEncoding.EncodeToString(make([]byte, 32000))
	body := `{"messages":[{"role":"user","content":[{"type":"text","text":"a b c"},` +
		`{"type":"image_url","image_url":{"url":"` + pictureURL(t, 28, 20, "png") + `"}},` +
		`{"type":"image_url","image_url":{"url":"` + pictureURL(t, 336, 336, "jpeg") + `"}},` +
		`{"type":"image_url","image_url":{"url":"https://example.com/cat.png"}},` +
		`{"type":"input_audio","input_audio":{"data":"` + wavBase64(16000, 3200) + `","format":"wav"}},` +
		`{"type":"input_audio","input_audio":{"data":"` + mp3 + `","format":"mp3"}}]}],"max_tokens":2}`
	resp := post(t, s.URL()+"/v1/chat/completions", body)
	var got completion
	if err := json.Unmarshal(readAll(t, resp.Body), &got); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %v", resp.StatusCode, err)
	}
	if want := 3 + 4 + 576 + 576 + 5 + 50; got.Usage.PromptTokens != want {
		t.Errorf("prompt_tokens %d, want %d", got.Usage.PromptTokens, want)
	}
}

// hugePNGHeader is a data URL of a PNG whose header claims 100000×10
// pixels (no pixel data follows: the sim reads headers only).
func hugePNGHeader() string {
	b := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")
	b = binary.BigEndian.AppendUint32(b, 100000)
	b = binary.BigEndian.AppendUint32(b, 10)
	b = append(b, 8, 2, 0, 0, 0)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[12:]))
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b)
}

// Broken parts are a 400 naming the part.
func TestMediaPartErrors(t *testing.T) {
	s := startSim(t, nil)
	for part, want := range map[string]string{
		`{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}`: `messages[0].content[0].image_url.url: not a PNG or JPEG picture`,
		`{"type":"image_url","image_url":{"url":"file:///x.png"}}`:              `messages[0].content[0].image_url.url: want a data:image/...;base64, URL`,
		`{"type":"image_url"}`: `messages[0].content[0]: an image_url part needs`,
		`{"type":"image_url","image_url":{"url":"` + hugePNGHeader() + `"}}`:   `a 100000×10 picture, larger than the sim takes`,
		`{"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}}`:  `messages[0].content[0].input_audio.data: not a WAV file`,
		`{"type":"input_audio","input_audio":{"data":"AAAA","format":"flac"}}`: `messages[0].content[0].input_audio.format: got \"flac\"`,
	} {
		resp := post(t, s.URL()+"/v1/chat/completions", `{"messages":[{"role":"user","content":[`+part+`]}]}`)
		msg := string(readAll(t, resp.Body))
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(msg, want) {
			t.Errorf("%s: status %d %s, want 400 with %q", part, resp.StatusCode, msg, want)
		}
	}
}

// The image-retrieval route answers one result per picture.
func TestImageRetrieval(t *testing.T) {
	s := startSim(t, nil)
	url := pictureURL(t, 14, 14, "png")
	resp := post(t, s.URL()+"/v1/infer", `{"input":[{"type":"image_url","url":"`+url+`"},{"type":"image_url","url":"`+url+`"}]}`)
	var got retrievalList
	if err := json.Unmarshal(readAll(t, resp.Body), &got); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %v", resp.StatusCode, err)
	}
	if len(got.Data) != 2 || got.Data[1].Index != 1 {
		t.Errorf("answer %+v, want two results", got)
	}
	resp = post(t, s.URL()+"/v1/infer", `{"input":[{"type":"text","url":"x"}]}`)
	if msg := string(readAll(t, resp.Body)); resp.StatusCode != http.StatusBadRequest || !strings.Contains(msg, `input[0].type: got \"text\"`) {
		t.Errorf("bad input: status %d %s", resp.StatusCode, msg)
	}
}

// GenAI-Perf's own multimodal payloads (PIL's PNGs, libsndfile's WAV
// clips; transport/testdata/multimodal) are read by the sim's rule: two
// 32×24 pictures of 3·2 patches and 0.1 s of audio (3 tokens) beside the
// text's words.
func TestGenAIPerfPayloadTokens(t *testing.T) {
	b, err := os.ReadFile("../testdata/multimodal/genaiperf_multimodal_inputs.json")
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Data []struct{ Payload []map[string]any }
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	s := startSim(t, nil)
	for i, d := range in.Data {
		p := d.Payload[0]
		p["stream"] = false
		text := p["messages"].([]any)[0].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
		body, _ := json.Marshal(p)
		resp := post(t, s.URL()+"/v1/chat/completions", string(body))
		var got completion
		if err := json.Unmarshal(readAll(t, resp.Body), &got); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("payload %d: status %d: %v", i, resp.StatusCode, err)
		}
		if want := countWords(text) + 2*6 + 3; got.Usage.PromptTokens != want {
			t.Errorf("payload %d: prompt_tokens %d, want %d", i, got.Usage.PromptTokens, want)
		}
	}
}
