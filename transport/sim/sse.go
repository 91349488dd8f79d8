package sim

import (
	"net/http"
	"strconv"
)

// sink receives a job's output: an SSE stream or a buffered JSON body.
type sink interface {
	// begin runs when prefill ends, just before the first token.
	begin() error
	// token emits one generated word (with its leading space).
	token(text []byte, reasoning bool) error
	// malformed emits something a client cannot parse, then the job goes on.
	malformed() error
	// finish ends the response normally.
	finish() error
}

// streamShape is the fixed JSON around each event of one API, laid out
// byte for byte like vLLM's, so the hot path only concatenates.
type streamShape struct {
	role, open, openReasoning, close, finish string
	// usage opens the usage-only chunk after the head; "" is vLLM's
	// `"choices":[],"usage":{`.
	usage string
	// headless marks a shape that writes the model (and what follows it)
	// itself, after "choices", so the head ends at "created".
	headless bool
}

var chatShape = streamShape{
	role:          `"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
	open:          `"choices":[{"index":0,"delta":{"content":"`,
	openReasoning: `"choices":[{"index":0,"delta":{"reasoning_content":"`,
	close:         `"},"logprobs":null,"finish_reason":null}]}`,
	finish:        `"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length","stop_reason":null}]}`,
}

// completionShape has no role chunk: vLLM's text_completion stream starts
// with the first token.
var completionShape = streamShape{
	open:   `"choices":[{"index":0,"text":"`,
	close:  `","logprobs":null,"finish_reason":null,"stop_reason":null}]}`,
	finish: `"choices":[{"index":0,"text":"","logprobs":null,"finish_reason":"length","stop_reason":null}]}`,
}

// sseSink writes `data: <json>\n\n` events and flushes after each one, so
// the client sees every token at the moment the engine produced it.
type sseSink struct {
	j     *job
	w     http.ResponseWriter
	rc    *http.ResponseController
	shape *streamShape
	// head is `data: {"id":…,"object":…,"created":…,"model":…,`, shared by
	// every event of the request.
	head []byte
	buf  []byte
	// held is token text kept back under MergeRate for the next chunk.
	held []byte
}

// newSSESink sends the response headers at once, as a server does when it
// accepts a streaming request, before the request waits for a slot.
func newSSESink(j *job) (*sseSink, error) {
	flavor := j.srv.cfg.Flavor
	s := &sseSink{j: j, w: j.w, rc: http.NewResponseController(j.w),
		shape: shapeFor(flavor, j.req.api, j.req.includeUsage, j.srv.modelJSON)}
	object := "chat.completion.chunk"
	if j.req.api == apiCompletions {
		object = "text_completion"
	}
	s.head = append(s.head, `data: {"id":"`...)
	s.head = append(s.head, j.id...)
	s.head = append(s.head, `","object":"`...)
	s.head = append(s.head, object...)
	s.head = append(s.head, `","created":`...)
	s.head = strconv.AppendInt(s.head, j.created, 10)
	s.head = append(s.head, ',')
	if !s.shape.headless {
		s.head = append(s.head, `"model":`...)
		s.head = append(s.head, j.srv.modelJSON...)
		s.head = append(s.head, ',')
		if flavor == FlavorOllama {
			s.head = append(s.head, ollamaFingerprint...)
		}
	}
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	s.w.WriteHeader(http.StatusOK)
	return s, s.rc.Flush()
}

func (s *sseSink) begin() error {
	if s.shape.role == "" {
		return nil
	}
	return s.event(s.shape.role)
}

// token sends one token's chunk; under MergeRate an answer token may be
// held back and go out with the next one (reasoning text is never merged).
func (s *sseSink) token(text []byte, reasoning bool) error {
	if rate := s.j.srv.cfg.MergeRate; rate > 0 && !reasoning {
		if s.j.rng.Float64() < rate {
			s.held = append(s.held, text...)
			return nil
		}
		if len(s.held) > 0 {
			text = append(s.held, text...)
			s.held = s.held[:0]
		}
	}
	return s.emit(text, reasoning)
}

// emit writes one content chunk.
func (s *sseSink) emit(text []byte, reasoning bool) error {
	b := append(s.buf[:0], s.head...)
	if reasoning {
		b = append(b, s.shape.openReasoning...)
	} else {
		b = append(b, s.shape.open...)
	}
	b = append(b, text...)
	b = append(b, s.shape.close...)
	return s.send(append(b, "\n\n"...))
}

// malformed cuts an event off after its first field: valid SSE framing,
// invalid JSON.
func (s *sseSink) malformed() error {
	return s.send(append(append(s.buf[:0], s.head...), "\n\n"...))
}

func (s *sseSink) finish() error {
	if len(s.held) > 0 {
		// The last tokens were held back: they go out before the end, as
		// Ollama flushes a pending piece when the sequence stops.
		held := s.held
		s.held = nil
		if err := s.emit(held, false); err != nil {
			return err
		}
	}
	if err := s.event(s.shape.finish); err != nil {
		return err
	}
	if s.j.req.includeUsage {
		if err := s.usage(); err != nil {
			return err
		}
	}
	return s.send(append(s.buf[:0], "data: [DONE]\n\n"...))
}

// usage is vLLM's usage-only chunk, sent only on stream_options request.
func (s *sseSink) usage() error {
	p, c := int64(s.j.req.promptTokens), int64(s.j.req.outputTokens)
	b := append(s.buf[:0], s.head...)
	if s.shape.usage != "" {
		b = append(b, s.shape.usage...)
	} else {
		b = append(b, `"choices":[],"usage":{`...)
	}
	b = append(b, `"prompt_tokens":`...)
	b = strconv.AppendInt(b, p, 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, c, 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, p+c, 10)
	if s.j.srv.cache != nil && !s.j.srv.cfg.HidePromptTokensDetails {
		b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
		b = strconv.AppendInt(b, int64(s.j.cached), 10)
		b = append(b, '}')
	}
	return s.send(append(b, "}}\n\n"...))
}

func (s *sseSink) event(body string) error {
	b := append(s.buf[:0], s.head...)
	b = append(b, body...)
	return s.send(append(b, "\n\n"...))
}

// send writes one whole event and flushes it; the scratch buffer is kept
// for the next event so steady-state streaming does not allocate.
func (s *sseSink) send(b []byte) error {
	s.buf = b
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.rc.Flush()
}
