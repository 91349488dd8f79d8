package sim

import (
	"net/http"
	"net/url"
	"strings"
)

// kserveKey is the routing table's entry for Triton's generate routes,
// whose paths name the model; kserveRoute maps a request to it.
const kserveKey = "/v2/models/{model}/generate"

// kserveRoute matches POST v2/models/{model}[/versions/{v}]/generate and
// /generate_stream, Triton's generate extension routes.
func (s *Server) kserveRoute(r *http.Request) (route, bool) {
	if _, ok := kserveModel(r.URL.EscapedPath()); !ok {
		return route{}, false
	}
	rt, ok := s.table[kserveKey]
	return rt, ok
}

// kserveModel is the model a generate path names, unescaped.
func kserveModel(escaped string) (string, bool) {
	rest, ok := strings.CutPrefix(escaped, "/v2/models/")
	if !ok {
		return "", false
	}
	seg := strings.Split(rest, "/")
	last := seg[len(seg)-1]
	if last != "generate" && last != "generate_stream" {
		return "", false
	}
	switch {
	case len(seg) == 2:
	case len(seg) == 4 && seg[1] == "versions" && seg[2] != "":
	default:
		return "", false
	}
	model, err := url.PathUnescape(seg[0])
	return model, err == nil && model != ""
}

// dataStream writes unnamed server-sent events (`data:` + JSON), as TGI
// and Triton stream, flushing each one.
type dataStream struct {
	e      *eventStream
	prefix string // "data:" (TGI's axum writes no space) or "data: "
}

func newDataStream(j *job, prefix string) (*dataStream, error) {
	e, err := newEventStream(j)
	return &dataStream{e: e, prefix: prefix}, err
}

func (d *dataStream) send(parts ...string) error {
	return d.e.flushFrame(append(d.e.buf[:0], d.prefix...), parts)
}

// malformed sends an event whose JSON is cut off.
func (d *dataStream) malformed() error { return d.send(`{"token":{"text":`) }

// tgiSink streams as TGI's /generate_stream does (see
// transport/decode_generate.go): one StreamResponse per token. The sim
// always generates max_new_tokens, so the answer ends as TGI's does at
// the length limit: the last token's event carries generated_text and,
// with parameters.details, details (finish_reason "length",
// generated_tokens, input_length).
type tgiSink struct {
	*dataStream
	j    *job
	n    int
	text []byte
}

func newTGISink(j *job) (sink, error) {
	d, err := newDataStream(j, "data:")
	return &tgiSink{dataStream: d, j: j}, err
}

func (s *tgiSink) begin() error { return nil }

func (s *tgiSink) token(text []byte, _ bool) error {
	s.n++
	s.text = append(s.text, text...)
	tok := `{"index":` + itoa(s.n) + `,"token":{"id":` + itoa(1000+s.n) + `,"text":"` + string(text) + `","logprob":-0.5,"special":false}`
	if s.n < s.j.req.outputTokens {
		return s.send(tok, `,"generated_text":null,"details":null}`)
	}
	return s.send(tok, `,"generated_text":"`, string(s.text), `","details":`, s.details("length"), `}`)
}

// details is the final event's details, null unless asked for.
func (s *tgiSink) details(reason string) string {
	if !s.j.req.details {
		return "null"
	}
	return `{"finish_reason":"` + reason + `","generated_tokens":` + itoa(s.j.req.outputTokens) +
		`,"seed":null,"input_length":` + itoa(s.j.req.promptTokens) + `}`
}

// finish ends an answer of no tokens with the EOS token, special, as TGI
// does; any other answer ended with its last token.
func (s *tgiSink) finish() error {
	if s.n > 0 {
		return nil
	}
	return s.send(`{"index":1,"token":{"id":2,"text":"</s>","logprob":-0.1,"special":true},"generated_text":"","details":`, s.details("eos_token"), `}`)
}

// kserveSink streams as Triton's generate_stream does with a streaming
// TensorRT-LLM model: one event per token whose text_output is the new
// piece; the stream's end is the response's.
type kserveSink struct {
	*dataStream
	head string
}

func newKServeSink(j *job) (sink, error) {
	d, err := newDataStream(j, "data: ")
	return &kserveSink{dataStream: d, head: `{"model_name":` + string(j.srv.modelJSON) + `,"model_version":"1","text_output":"`}, err
}

func (s *kserveSink) begin() error { return nil }

func (s *kserveSink) token(text []byte, _ bool) error { return s.send(s.head, string(text), `"}`) }

func (s *kserveSink) finish() error { return nil }
