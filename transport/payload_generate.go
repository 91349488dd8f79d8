package transport

import (
	"bytes"
	"strconv"
)

// generateBody renders a TGI or a KServe generate request, whose prompt is
// plain text and whose model is the server's own (TGI serves one) or named
// in the path (KServe), so neither body names it.
//
// TGI (router/src/lib.rs GenerateRequest, GenerateParameters):
// {"inputs", "parameters": {"max_new_tokens", "details": true, extra...},
// "stream"}. details asks for the final event's (or the response's)
// details.generated_tokens and, streamed, input_length: the server's token
// counts. extra goes into parameters, where TGI takes every generation
// option (temperature, stop, seed, top_n_tokens...), and replaces a
// built-in of the same name. TGI has no minimum length, so MinTokens is
// not sent. "stream" is what TGI's root route (POST /, GenAI-Perf's
// huggingface_generate path) reads to choose a stream; /generate_stream
// ignores it.
//
// KServe, Triton's generate extension (docs/protocol/extension_generate.md
// in triton-inference-server/server): a flat object whose members are the
// model's input tensors, named as the TensorRT-LLM backend's ensemble
// names them — {"text_input", "max_tokens", "min_length", "stream", extra...}
// (and bad_words, stop_words, temperature... given in extra, merged at the
// top level). min_length is what GenAI-Perf sends for a deterministic
// output length to TRT-LLM. "stream": true makes the backend answer piece
// by piece on generate_stream; without it generate_stream sends one event.
func (s BodySpec) generateBody(p Prompt) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	text := jsonString(p.Text)
	if s.API == TGI {
		top := &objectWriter{buf: &b}
		top.raw("inputs", text)
		var params bytes.Buffer
		pw := &objectWriter{buf: &params, extra: s.Extra}
		if p.MaxTokens > 0 {
			pw.raw("max_new_tokens", strconv.Itoa(p.MaxTokens))
		}
		pw.raw("details", "true")
		for _, f := range s.Extra {
			pw.field(f.Key, string(f.Value))
		}
		top.raw("parameters", "{"+params.String()+"}")
		if s.Stream {
			top.raw("stream", "true")
		}
	} else {
		w := &objectWriter{buf: &b, extra: s.Extra}
		w.raw("text_input", text)
		if p.MaxTokens > 0 {
			w.raw("max_tokens", strconv.Itoa(p.MaxTokens))
		}
		if p.MinTokens > 0 {
			w.raw("min_length", strconv.Itoa(p.MinTokens))
		}
		if s.Stream {
			w.raw("stream", "true")
		}
		for _, f := range s.Extra {
			w.field(f.Key, string(f.Value))
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}
