package transport

import (
	"encoding/json"
	"errors"

	"github.com/buger/jsonparser"

	"github.com/llmbench/llmbench/metrics"
)

// piece is what one response object (a stream chunk or a whole
// non-streaming response) contributes to a record.
type piece struct {
	text      []byte // unescaped content, valid until the next decode
	reasoning bool   // text is reasoning_content only
	prompt    int64  // usage.prompt_tokens
	output    int64  // usage.completion_tokens
	// cached is the prompt tokens the server says it served from its
	// prefix cache (chat's usage.prompt_tokens_details.cached_tokens,
	// Responses' usage.input_tokens_details.cached_tokens, Messages'
	// usage.cache_read_input_tokens); cachedSet says the object had the
	// field at all, so "0 cached" and "not reported" stay apart.
	cached    int64
	cachedSet bool
	// cacheWrite is Messages' usage.cache_creation_input_tokens: prompt
	// tokens written to the cache, not read from it (not a hit).
	cacheWrite int64
	errMsg     string // an `error` object's message: the server failed the request
	// finished is true when choices[0] has a finish_reason (not null): the
	// server ended the answer normally, so a stream that stops after it is
	// complete even without `[DONE]`. Responses' response.completed and
	// Messages' stop_reason and message_stop say the same.
	finished bool
	// early marks usage reported as a stream opens (Messages'
	// message_start): it counts the prompt but says nothing of the end.
	early bool
}

// errMalformed marks a response object that is not valid JSON.
var errMalformed = errors.New("response is not valid JSON")

// decoder extracts pieces from response objects, reusing its buffers, so
// the per-chunk cost stays well under a microsecond for typical chunks.
// It reads choices[0].delta.content (chat streams; also reasoning_content
// or reasoning on reasoning models, and tool calls' function arguments),
// choices[0].message.content (chat responses), choices[0].text
// (completions, and vLLM chat chunks without an `object` field),
// choices[0].finish_reason, usage and error.
type decoder struct {
	// api selects the response shapes read: Chat (also completions and
	// embeddings, which share the OpenAI layout), Responses or Messages.
	api             API
	answer, thought []byte
	// view is the answer text when it is one string without escapes (the
	// rule): a slice of the response object itself, so a huge answer is
	// not copied once more on its way to the record.
	view []byte
	// inPlace says the object decoded is the caller's to overwrite (a
	// whole body read for it), so an escaped answer is unescaped where it
	// lies and viewed, never copied: its text is never longer.
	inPlace bool
	p       piece
	s       scanner
	// shape is the last chunk's, to read the next without a scan.
	shape chunkShape
	// event holds what a Responses or Messages event says of itself; see
	// agentEvent. It is last: a chat object never touches it, so the
	// fields every object does share fewer cache lines.
	event agentEvent
}

func (d *decoder) decode(data []byte) (*piece, error) {
	d.answer, d.thought, d.view = d.answer[:0], d.thought[:0], nil
	if !d.inPlace { // a whole body is one object: no shape to follow
		if text, ok := d.shape.match(d.api, data); ok {
			d.p, d.view = d.shape.p, text
			d.p.text = text
			return &d.p, nil
		}
	}
	d.p = piece{}
	if judgedAfterScan(d.api) {
		d.event = agentEvent{} // read only by their judges, below
	}
	d.s.data, d.s.pos, d.s.depth = data, 0, 0
	if d.s.d != d { // first use (or a copied decoder): point the scanner here
		d.s.p, d.s.d = &d.p, d
	}
	if err := d.s.scan(); err != nil {
		return nil, errMalformed
	}
	switch d.api {
	case Responses:
		d.responsesEvent()
	case Messages:
		d.messagesEvent()
	case TGI:
		d.tgiEvent()
	}
	answer := d.answer
	if d.view != nil {
		answer = d.view
	}
	if d.view != nil && len(d.answer) == 0 && len(d.thought) == 0 && !d.inPlace {
		d.shape.learn(d.api, data, d.view, &d.p) // the text is the view alone
	}
	switch {
	case len(d.thought) == 0:
		d.p.text = answer
	case len(answer) == 0:
		d.p.text, d.p.reasoning = d.thought, true
	default: // both in one chunk: it is an answer chunk
		d.thought = append(d.thought, answer...)
		d.p.text = d.thought
	}
	return &d.p, nil
}

// addAnswer takes one answer string's body. The first, when it has no
// escapes, is only viewed; any later one joins it in the answer buffer.
func (d *decoder) addAnswer(raw []byte, escaped bool) {
	if !escaped && d.view == nil && len(d.answer) == 0 {
		d.view = raw
		return
	}
	if escaped && d.inPlace && d.view == nil && len(d.answer) == 0 {
		// The scanner has checked every escape, and an escape is never
		// shorter than what it stands for, so Unescape writes behind
		// what it reads.
		if out, err := jsonparser.Unescape(raw, raw[:0:len(raw)]); err == nil {
			d.view = out
			return
		}
	}
	if d.view != nil {
		d.answer, d.view = append(d.answer, d.view...), nil
	}
	if escaped {
		d.answer = appendUnescaped(d.answer, raw)
	} else {
		d.answer = append(d.answer, raw...)
	}
}

// shrink drops text buffers grown past bigBuffer by a huge response.
func (d *decoder) shrink() {
	if cap(d.answer) > bigBuffer {
		d.answer = nil
	}
	if cap(d.thought) > bigBuffer {
		d.thought = nil
	}
	d.shape.forget()
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
// plain string) as text. Errors are rare, so encoding/json is fine here.
func errorMessage(raw []byte) string {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	return string(raw)
}

// Response is what one response object (a stream chunk's JSON or a whole
// non-streaming body) carries, for readers of stored responses such as
// perf_analyzer's profile_export.json.
type Response struct {
	Text      string
	Reasoning bool
	Usage     metrics.Usage
	// Error is an `error` object's message, "" when the object has none.
	Error string
	// Finished is true when the object carries a finish_reason.
	Finished bool
}

// DecodeResponse decodes one OpenAI chat or completions response object
// the way the client does.
func DecodeResponse(data []byte) (Response, error) {
	var d decoder
	p, err := d.decode(data)
	if err != nil {
		return Response{}, err
	}
	r := Response{Text: string(p.text), Reasoning: p.reasoning, Error: p.errMsg, Finished: p.finished}
	if p.prompt+p.output > 0 {
		r.Usage = metrics.Usage{PromptTokens: int(p.prompt), CompletionTokens: int(p.output), Reported: true,
			CachedTokens: int(p.cached), CachedReported: p.cachedSet}
	}
	return r, nil
}
