package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
	"unsafe"

	"github.com/llmbench/llmbench/metrics"
)

// streamState is the reusable per-request scratch space: the SSE parser,
// the JSON decoder and the output text buffer, and what the response has
// said about its own end.
type streamState struct {
	parser *SSEParser
	dec    decoder
	out    []byte
	body   []byte // a non-streaming response body
	clock  *Clock

	// encoding is the response's Content-Encoding, named in the message
	// of a response the client could not read.
	encoding string
	// endedAt is when the first event with a finish_reason or a usage
	// report arrived (0: none): the server ended the answer as it meant to.
	endedAt int64
	// done is set by a `[DONE]` event.
	done bool
	// events counts dispatched SSE events, for the message of an empty
	// stream.
	events int
	// adopt lets a whole body's large answer text be taken as the output
	// where it lies (in the body, or the decoder's buffer) instead of
	// copied once more; adopted says it was, and afterWhole then lets go
	// of every buffer the text may share, since the record keeps it.
	adopt, adopted bool
}

func newStreamState(clock *Clock, maxLine int64, api API) *streamState {
	p := NewSSEParser(nil, clock)
	p.SetMaxLineSize(maxLine)
	return &streamState{parser: p, clock: clock, dec: decoder{api: api}}
}

// reset readies the state for a new response.
func (st *streamState) reset() {
	st.out = st.out[:0]
	st.endedAt, st.done, st.events = 0, false, 0
}

// bytesPerChunk is the text a streamed chunk carries on average, as far
// as sizing the output buffer goes: a token is 3 to 5 bytes of English.
const bytesPerChunk = 8

// reserve sizes the output buffer for an answer of chunks chunks, so it is
// not grown token by token while the stream arrives.
func (st *streamState) reserve(chunks int) {
	if n := chunks * bytesPerChunk; n > cap(st.out) {
		st.out = make([]byte, 0, n)
	}
}

// bigBuffer is the capacity past which a buffer is not kept for the next
// request: typical answers are a few KB, so only a runaway one is dropped.
const bigBuffer = 1 << 20

// shrink drops buffers grown by a huge response.
func (st *streamState) shrink() {
	if cap(st.out) > bigBuffer {
		st.out = nil
	}
	if cap(st.body) > bigBuffer {
		st.body = nil
	}
	st.dec.shrink()
	st.parser.shrink()
}

var done = []byte("[DONE]")

// readStream consumes an SSE response. Content-bearing events become
// chunks; `[DONE]`, role-only and finish-only deltas, usage-only chunks and
// comments never do. How the stream ended decides the outcome (see
// outcome); one cut mid-body is a failure.
func (st *streamState) readStream(body io.Reader, rec *metrics.Record, g *guard) {
	st.parser.Reset(body)
	st.reset()
	st.reserve(cap(rec.Chunks))
	defer func() { rec.Output = st.output(rec) }()
	for {
		ev, err := st.parser.Next()
		if err != nil {
			st.finishRead(body, rec, g, err)
			return
		}
		st.events++
		if bytes.Equal(ev.Type, []byte("error")) {
			rec.Err = fail(metrics.ErrServer, 0, st.dec.errorText(ev.Data))
			rec.Done = ev.At
			return
		}
		if bytes.Equal(ev.Data, done) {
			st.done = true
			st.finishRead(body, rec, g, io.EOF)
			return
		}
		if failure := st.apply(ev.Data, ev.At, rec); failure != nil {
			rec.Err, rec.Done = failure, ev.At
			return
		}
	}
}

// finishRead ends a stream at err: io.EOF (or [DONE]) ends it after
// draining the body so the connection can be reused, and outcome judges
// what it carried; anything else fails it.
func (st *streamState) finishRead(body io.Reader, rec *metrics.Record, g *guard, err error) {
	if errors.Is(err, io.EOF) {
		_, err = io.Copy(io.Discard, body)
	}
	rec.Done = st.clock.Now()
	if err != nil {
		rec.Err = g.failure(err)
		return
	}
	rec.Err = st.outcome(rec)
}

// outcome judges a stream that ended cleanly. Content with a finish_reason,
// a usage report or `[DONE]` is complete; content with none of them may be
// cut short (a proxy or server that closed mid-answer), so it is truncated.
// No content at all is empty — unless the server said it finished and
// counted 0 completion tokens: a real zero-token answer.
func (st *streamState) outcome(rec *metrics.Record) *metrics.Failure {
	switch {
	case len(rec.Chunks) > 0 && st.dec.api == KServe:
		// Triton's generate stream has no end sign: the server closing it
		// cleanly is the end; one cut mid-body failed in finishRead.
		return nil
	case len(rec.Chunks) > 0 && st.endedAt == 0 && !st.done:
		return fail(metrics.ErrTruncated, 0, "stream ended after content without "+st.endSigns())
	case len(rec.Chunks) > 0:
		return nil
	case st.endedAt != 0 && rec.Usage.CompletionTokens == 0:
		st.zeroAnswer(rec, st.endedAt)
		return nil
	}
	lacks := "no content event, finish_reason or usage"
	switch st.dec.api {
	case Responses, Messages:
		lacks = "no content delta, " + st.endSigns()
	case TGI:
		lacks = "no token that is not special, " + st.endSigns()
	case KServe:
		lacks = "no text_output"
	}
	if st.events == 0 {
		lacks = "no SSE event at all"
	}
	return fail(metrics.ErrEmpty, 0, st.emptyMessage(rec, "stream", lacks))
}

// endSigns names the events by which the API's stream says it is over.
func (st *streamState) endSigns() string {
	switch st.dec.api {
	case Responses:
		return "response.completed or response.incomplete"
	case Messages:
		return "stop_reason or message_stop"
	case TGI:
		return "generated_text or details"
	}
	return "finish_reason, usage or [DONE]"
}

// zeroAnswer records a completed answer of no tokens as one empty chunk
// at the event that ended it, as an embeddings response is one chunk, so
// every completed request is in request_count and the latency figures.
func (st *streamState) zeroAnswer(rec *metrics.Record, at int64) {
	rec.Chunks = append(rec.Chunks, at)
	rec.ChunkEnds = append(rec.ChunkEnds, 0)
}

// emptyMessage says what an empty response lacked; lacks is what a plain
// one lacks. It holds no count that varies per request, so the error list
// groups them all.
func (st *streamState) emptyMessage(rec *metrics.Record, kind, lacks string) string {
	msg := "200 " + kind + " without content"
	switch {
	case st.encoding != "":
		return msg + " (body has Content-Encoding " + st.encoding + ", which was not asked for)"
	case rec.Usage.CompletionTokens > 0:
		return msg + " though usage reports completion tokens"
	}
	return msg + " (" + lacks + ")"
}

// apply folds one response object into rec; it returns a failure for an
// object that is malformed or reports an error.
func (st *streamState) apply(data []byte, at int64, rec *metrics.Record) *metrics.Failure {
	p, err := st.dec.decode(data)
	if err != nil {
		return fail(metrics.ErrMalformed, 0, st.malformedMessage(err, data))
	}
	if p.errMsg != "" {
		return fail(metrics.ErrServer, 0, p.errMsg)
	}
	if p.prompt+p.output > 0 { // some servers send zero-filled usage on every chunk
		mergeUsage(&rec.Usage, p)
	}
	if (p.finished || p.prompt+p.output > 0 && !p.early) && st.endedAt == 0 {
		st.endedAt = at
	}
	if len(p.text) == 0 {
		return nil
	}
	if p.reasoning && rec.ReasoningChunks == len(rec.Chunks) {
		rec.ReasoningChunks++
	}
	if st.adopt && len(st.out) == 0 && len(p.text) >= handOver {
		st.out, st.adopted = p.text[:len(p.text):len(p.text)], true // see adopt
	} else {
		st.out = append(st.out, p.text...)
	}
	rec.Chunks = append(rec.Chunks, at)
	rec.ChunkEnds = append(rec.ChunkEnds, int32(len(st.out)))
	return nil
}

// mergeUsage takes the counts an object reports: a count it leaves at 0
// keeps the one reported before, as Messages reports the prompt in
// message_start and the answer in message_delta (with input_tokens 0).
func mergeUsage(u *metrics.Usage, p *piece) {
	if p.prompt > 0 {
		u.PromptTokens = int(p.prompt)
	}
	if p.output > 0 {
		u.CompletionTokens = int(p.output)
	}
	if p.cachedSet {
		if p.cached > 0 || !u.CachedReported {
			u.CachedTokens = int(p.cached)
		}
		u.CachedReported = true
	}
	u.Reported = true
}

// malformedMessage quotes the start of an object that is not JSON, naming
// an encoding the client never asked for (a gzip body, say).
func (st *streamState) malformedMessage(err error, data []byte) string {
	if st.encoding != "" {
		return fmt.Sprintf("%v: body has Content-Encoding %s, which was not asked for", err, st.encoding)
	}
	return err.Error() + ": " + string(data[:min(len(data), 2*maxMessage)])
}

// readWhole consumes a non-streaming response: one chunk at completion.
// An embeddings response has no text but still completes the request; a
// chat or completions response without text is empty unless the server
// said it finished with 0 completion tokens.
func (st *streamState) readWhole(body io.Reader, rec *metrics.Record, g *guard, api API) {
	data, err := st.readBody(body)
	rec.Done = st.clock.Now()
	if err != nil {
		rec.Err = g.failure(err)
		return
	}
	st.reset()
	st.dec.inPlace, st.adopt = true, true
	defer st.afterWhole()
	if rec.Err = st.apply(data, rec.Done, rec); rec.Err != nil {
		return
	}
	if len(rec.Chunks) == 0 {
		switch {
		case api.Scores() || st.endedAt != 0 && rec.Usage.CompletionTokens == 0:
			st.zeroAnswer(rec, rec.Done)
		default:
			rec.Err = fail(metrics.ErrEmpty, 0, st.emptyMessage(rec, "response", wholeLacks(api)))
		}
	}
	rec.Output = st.output(rec)
}

// afterWhole ends the reading of a whole body. When its answer was
// adopted, the buffers the text may lie in belong to the record now (or
// to nobody, when output copied it after all): none is reused.
func (st *streamState) afterWhole() {
	if st.adopted {
		st.out, st.body, st.dec.answer, st.dec.thought = nil, nil, nil, nil
	}
	st.dec.inPlace, st.adopt, st.adopted = false, false, false
}

// wholeLacks is what an empty whole response of the API lacks.
func wholeLacks(api API) string {
	switch api {
	case TGI:
		return "no generated_text or details"
	case KServe:
		return "no text_output"
	}
	return "no choices with text, finish_reason or usage"
}

// handOver is the output size from which the record takes the buffer
// itself instead of a copy: a copy of a huge answer would double its cost.
const handOver = 64 << 10

// output is the record's Output text: valid UTF-8 whatever the server
// sent (see validText). A large valid output is handed over without a
// copy; the state then lets go of the buffer, which is never written again.
func (st *streamState) output(rec *metrics.Record) string {
	if len(st.out) < handOver || !utf8.Valid(st.out) {
		return validText(st.out, rec.ChunkEnds)
	}
	s := unsafe.String(&st.out[0], len(st.out))
	st.out = nil
	return s
}

// errorText extracts a message from an `event: error` payload, read as
// the API's error event (OpenAI {"error": {"message"}}, Responses'
// top-level message, Anthropic's {"error": {"type", "message"}}).
func (d *decoder) errorText(data []byte) string {
	if p, err := d.decode(data); err == nil && p.errMsg != "" {
		return p.errMsg
	}
	return string(data)
}
