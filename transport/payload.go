package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// API is the kind of OpenAI endpoint a run talks to.
type API string

// The supported APIs.
const (
	Chat        API = "chat"
	Completions API = "completions"
	Embeddings  API = "embeddings"
)

// ParseAPI accepts an endpoint type name as given by a user.
func ParseAPI(s string) (API, error) {
	switch a := API(s); a {
	case Chat, Completions, Embeddings:
		return a, nil
	}
	return "", fmt.Errorf("unknown endpoint type %q, want chat, completions or embeddings", s)
}

// DefaultPath is the URL path GenAI-Perf uses for the API.
func (a API) DefaultPath() string {
	switch a {
	case Completions:
		return "/v1/completions"
	case Embeddings:
		return "/v1/embeddings"
	}
	return "/v1/chat/completions"
}

// Field is one extra top-level body key with its JSON-encoded value; extra
// fields are written in order and replace built-in keys of the same name.
type Field struct {
	Key   string
	Value json.RawMessage
}

// Prompt is what one request asks for, independent of the API's wire shape.
type Prompt struct {
	Text string
	// MaxTokens becomes max_tokens when > 0.
	MaxTokens int
	// MinTokens becomes min_tokens when > 0 (deterministic output length on
	// vLLM-style servers).
	MinTokens int
}

// BodySpec is the per-run part of every request body.
type BodySpec struct {
	API    API
	Model  string
	Stream bool
	Extra  []Field
}

// Body renders the JSON request body for p, keys in GenAI-Perf's order
// (messages/prompt/input, model, stream, stream_options, max_tokens,
// min_tokens, then extras). Streaming requests ask for
// stream_options.include_usage so the server's own token counts arrive.
func (s BodySpec) Body(p Prompt) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	w := &objectWriter{buf: &b, extra: s.Extra}
	text := jsonString(p.Text)
	switch s.API {
	case Chat:
		w.raw("messages", `[{"role":"user","content":`+text+`}]`)
	case Completions:
		w.raw("prompt", text)
	case Embeddings:
		w.raw("input", "["+text+"]")
	}
	w.raw("model", jsonString(s.Model))
	if s.API != Embeddings {
		if s.Stream {
			w.raw("stream", "true")
			w.raw("stream_options", `{"include_usage":true}`)
		}
		if p.MaxTokens > 0 {
			w.raw("max_tokens", strconv.Itoa(p.MaxTokens))
		}
		if p.MinTokens > 0 {
			w.raw("min_tokens", strconv.Itoa(p.MinTokens))
		}
	}
	for _, f := range s.Extra {
		w.field(f.Key, string(f.Value))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// objectWriter writes the members of a JSON object, skipping built-in keys
// that an extra field overrides.
type objectWriter struct {
	buf   *bytes.Buffer
	extra []Field
	n     int
}

func (w *objectWriter) raw(key, value string) {
	for _, f := range w.extra {
		if f.Key == key {
			return
		}
	}
	w.field(key, value)
}

func (w *objectWriter) field(key, value string) {
	if w.n > 0 {
		w.buf.WriteByte(',')
	}
	w.n++
	w.buf.WriteString(jsonString(key))
	w.buf.WriteByte(':')
	w.buf.WriteString(value)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
