package transport

import (
	"bytes"
	"errors"
	"io"

	"github.com/llmbench/llmbench/metrics"
)

// streamState is the reusable per-request scratch space: the SSE parser,
// the JSON decoder and the output text buffer.
type streamState struct {
	parser *SSEParser
	dec    decoder
	out    []byte
	body   []byte // a non-streaming response body
	clock  *Clock
}

func newStreamState(clock *Clock) *streamState {
	return &streamState{parser: NewSSEParser(nil, clock), clock: clock}
}

var done = []byte("[DONE]")

// readStream consumes an SSE response. Content-bearing events become
// chunks; `[DONE]`, role-only and finish-only deltas, usage-only chunks and
// comments never do. A stream that ends cleanly without `[DONE]` is still a
// completed request; one cut mid-body is a failure.
func (st *streamState) readStream(body io.Reader, rec *metrics.Record, g *guard) {
	st.parser.Reset(body)
	st.out = st.out[:0]
	defer func() { rec.Output = string(st.out) }()
	for {
		ev, err := st.parser.Next()
		if err != nil {
			st.finishRead(body, rec, g, err)
			return
		}
		g.touch()
		if bytes.Equal(ev.Type, []byte("error")) {
			rec.Err = &metrics.Failure{Class: metrics.ErrServer, Message: truncate(errorText(ev.Data), 200)}
			rec.Done = ev.At
			return
		}
		if bytes.Equal(ev.Data, done) {
			st.finishRead(body, rec, g, io.EOF)
			return
		}
		if failure := st.apply(ev.Data, ev.At, rec); failure != nil {
			rec.Err, rec.Done = failure, ev.At
			return
		}
	}
}

// finishRead ends a stream at err: io.EOF (or [DONE]) completes it after
// draining the body so the connection can be reused; anything else fails it.
func (st *streamState) finishRead(body io.Reader, rec *metrics.Record, g *guard, err error) {
	if errors.Is(err, io.EOF) {
		_, err = io.Copy(io.Discard, body)
	}
	rec.Done = st.clock.Now()
	if err != nil {
		rec.Err = g.failure(err)
	}
}

// apply folds one response object into rec; it returns a failure for an
// object that is malformed or reports an error.
func (st *streamState) apply(data []byte, at int64, rec *metrics.Record) *metrics.Failure {
	p, err := st.dec.decode(data)
	if err != nil {
		return &metrics.Failure{Class: metrics.ErrMalformed, Message: truncate(err.Error()+": "+string(data), 200)}
	}
	if p.errMsg != "" {
		return &metrics.Failure{Class: metrics.ErrServer, Message: truncate(p.errMsg, 200)}
	}
	if p.prompt+p.output > 0 { // some servers send zero-filled usage on every chunk
		rec.Usage = metrics.Usage{PromptTokens: int(p.prompt), CompletionTokens: int(p.output), Reported: true}
	}
	if len(p.text) == 0 {
		return nil
	}
	if p.reasoning && rec.ReasoningChunks == len(rec.Chunks) {
		rec.ReasoningChunks++
	}
	st.out = append(st.out, p.text...)
	rec.Chunks = append(rec.Chunks, at)
	rec.ChunkEnds = append(rec.ChunkEnds, int32(len(st.out)))
	return nil
}

// readWhole consumes a non-streaming response: one chunk at completion.
// An embeddings response has no text but still completes the request.
func (st *streamState) readWhole(body io.Reader, rec *metrics.Record, g *guard, api API) {
	buf := bytes.NewBuffer(st.body[:0])
	_, err := buf.ReadFrom(body)
	st.body = buf.Bytes()
	rec.Done = st.clock.Now()
	if err != nil {
		rec.Err = g.failure(err)
		return
	}
	st.out = st.out[:0]
	if failure := st.apply(st.body, rec.Done, rec); failure != nil {
		rec.Err = failure
		return
	}
	if api == Embeddings && len(rec.Chunks) == 0 {
		rec.Chunks = append(rec.Chunks, rec.Done)
		rec.ChunkEnds = append(rec.ChunkEnds, 0)
	}
	rec.Output = string(st.out)
}

// errorText extracts a message from an `event: error` payload.
func errorText(data []byte) string {
	var d decoder
	if p, err := d.decode(data); err == nil && p.errMsg != "" {
		return p.errMsg
	}
	return string(data)
}
