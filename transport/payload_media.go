package transport

import (
	"bytes"
	"strings"
)

// AudioClip is one input_audio content part: the encoded clip in base64
// and its container format ("wav", "mp3").
type AudioClip struct {
	Data, Format string
}

// hasMedia reports whether the prompt carries pictures or clips, which
// turn a chat user turn into a list of content parts.
func (p Prompt) hasMedia() bool { return len(p.Images) > 0 || len(p.Audio) > 0 }

// contentParts renders a multimodal user turn as GenAI-Perf's
// OPENAI_MULTIMODAL converter does: the text part (none for an entry of
// media alone, whose row has no text), then one image_url part per
// picture, then one input_audio part per clip —
// [{"type":"text","text":...},
// {"type":"image_url","image_url":{"url":...}},
// {"type":"input_audio","input_audio":{"data":...,"format":...}}].
func contentParts(p Prompt) string {
	var b strings.Builder
	b.WriteByte('[')
	sep := func() {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
	}
	if p.Text != "" {
		b.WriteString(`{"type":"text","text":`)
		b.WriteString(jsonString(p.Text))
		b.WriteByte('}')
	}
	for _, u := range p.Images {
		sep()
		b.WriteString(`{"type":"image_url","image_url":{"url":`)
		b.WriteString(jsonString(u))
		b.WriteString(`}}`)
	}
	for _, a := range p.Audio {
		sep()
		b.WriteString(`{"type":"input_audio","input_audio":{"data":`)
		b.WriteString(jsonString(a.Data))
		b.WriteString(`,"format":`)
		b.WriteString(jsonString(a.Format))
		b.WriteString(`}}`)
	}
	b.WriteByte(']')
	return b.String()
}

// imageRetrievalBody renders GenAI-Perf's IMAGE_RETRIEVAL payload (a NIM
// image-retrieval route such as v1/infer): {"input": [{"type":
// "image_url", "url": ...}, ...], extra...}, with no model and no text,
// as its converter writes it.
func (s BodySpec) imageRetrievalBody(p Prompt) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	w := &objectWriter{buf: &b, extra: s.Extra}
	var in strings.Builder
	in.WriteByte('[')
	for i, u := range p.Images {
		if i > 0 {
			in.WriteByte(',')
		}
		in.WriteString(`{"type":"image_url","url":` + jsonString(u) + `}`)
	}
	in.WriteByte(']')
	w.raw("input", in.String())
	for _, f := range s.Extra {
		w.field(f.Key, string(f.Value))
	}
	b.WriteByte('}')
	return b.Bytes()
}
