package transport

import (
	"encoding/json"
	"errors"

	"github.com/buger/jsonparser"
)

// piece is what one response object (a stream chunk or a whole
// non-streaming response) contributes to a record.
type piece struct {
	text      []byte // unescaped content, valid until the next decode
	reasoning bool   // text is reasoning_content only
	prompt    int64  // usage.prompt_tokens
	output    int64  // usage.completion_tokens
	errMsg    string // an `error` object's message: the server failed the request
}

// errMalformed marks a response object that is not valid JSON.
var errMalformed = errors.New("response is not valid JSON")

// The paths read from every response object, in one pass. Chat streams
// carry delta.content (and reasoning_content or reasoning on reasoning
// models), chat responses message.content, completions choices[0].text —
// which vLLM also uses for chat chunks without an `object` field.
var decodePaths = [][]string{
	{"choices", "[0]", "delta", "content"},
	{"choices", "[0]", "delta", "reasoning_content"},
	{"choices", "[0]", "delta", "reasoning"},
	{"choices", "[0]", "message", "content"},
	{"choices", "[0]", "message", "reasoning_content"},
	{"choices", "[0]", "text"},
	{"usage", "prompt_tokens"},
	{"usage", "completion_tokens"},
	{"error"},
}

const (
	pathContent = iota
	pathReasoning
	pathReasoningAlt
	pathMessage
	pathMessageReasoning
	pathText
	pathPromptTokens
	pathCompletionTokens
	pathError
)

// decoder extracts pieces without building a DOM, reusing its buffers, so
// the per-chunk cost stays well under a microsecond for typical chunks.
type decoder struct {
	answer, thought []byte
	p               piece
}

func (d *decoder) decode(data []byte) (*piece, error) {
	if !json.Valid(data) {
		return nil, errMalformed
	}
	d.answer, d.thought = d.answer[:0], d.thought[:0]
	d.p = piece{}
	jsonparser.EachKey(data, d.visit, decodePaths...)
	if len(d.answer) > 0 {
		d.p.text = append(d.thought, d.answer...)
	} else {
		d.p.text, d.p.reasoning = d.thought, len(d.thought) > 0
	}
	return &d.p, nil
}

func (d *decoder) visit(idx int, value []byte, vt jsonparser.ValueType, err error) {
	if err != nil {
		return
	}
	switch idx {
	case pathContent, pathMessage, pathText:
		if vt == jsonparser.String {
			d.answer = appendUnescaped(d.answer, value)
		}
	case pathReasoning, pathReasoningAlt, pathMessageReasoning:
		if vt == jsonparser.String {
			d.thought = appendUnescaped(d.thought, value)
		}
	case pathPromptTokens:
		d.p.prompt, _ = jsonparser.ParseInt(value)
	case pathCompletionTokens:
		d.p.output, _ = jsonparser.ParseInt(value)
	case pathError:
		if vt != jsonparser.Null {
			d.p.errMsg = errorMessage(value, vt)
		}
	}
}

// appendUnescaped appends the decoded form of a JSON string body.
func appendUnescaped(dst, raw []byte) []byte {
	if len(raw) == 0 {
		return dst
	}
	start := len(dst)
	dst = append(dst, raw...) // room for the result, which is never longer
	out, err := jsonparser.Unescape(raw, dst[start:])
	if err != nil {
		return dst // keep the raw text rather than lose the chunk
	}
	if &out[0] != &dst[start] { // Unescape had to allocate
		return append(dst[:start], out...)
	}
	return dst[:start+len(out)]
}

// errorMessage renders an OpenAI-style error value ({"message": ...} or a
// plain string) as text.
func errorMessage(value []byte, vt jsonparser.ValueType) string {
	if vt == jsonparser.String {
		s, _ := jsonparser.ParseString(value)
		return s
	}
	if msg, err := jsonparser.GetString(value, "message"); err == nil {
		return msg
	}
	return string(value)
}
