package sim

import (
	"net/http"
	"strconv"
)

// eventStream writes named server-sent events (`event: T` + `data: J`),
// as the Responses and Messages APIs stream, flushing each one so the
// client sees it the moment the engine produced it.
type eventStream struct {
	j   *job
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf []byte
	// kind is the kind of the content block open now: 0 none, 1 the
	// answer, 2 reasoning.
	kind int
	// blocks counts the blocks opened so far, the next block's index.
	blocks int
}

// newEventStream sends the response headers at once, as a server does
// when it accepts a streaming request, before the request waits for a
// slot.
func newEventStream(j *job) (*eventStream, error) {
	e := &eventStream{j: j, w: j.w, rc: http.NewResponseController(j.w)}
	h := e.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	e.w.WriteHeader(http.StatusOK)
	return e, e.rc.Flush()
}

// send writes one event whose data is the concatenation of parts.
func (e *eventStream) send(typ string, parts ...string) error {
	b := append(e.buf[:0], "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: "...)
	return e.flushFrame(b, parts)
}

// flushFrame ends the frame begun in b (its head, in e.buf's storage)
// with parts and a blank line, writes it and flushes it.
func (e *eventStream) flushFrame(b []byte, parts []string) error {
	for _, p := range parts {
		b = append(b, p...)
	}
	b = append(b, "\n\n"...)
	e.buf = b
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	return e.rc.Flush()
}

// malformed sends an event whose JSON is cut off: valid SSE framing,
// invalid JSON.
func (e *eventStream) malformed(typ string) error {
	return e.send(typ, `{"type":"`+typ+`","delta":`)
}

func kindOf(reasoning bool) int {
	if reasoning {
		return 2
	}
	return 1
}

func itoa(n int) string { return strconv.Itoa(n) }

// responsesSink streams as OpenAI's Responses API does (see
// transport/decode_responses.go for the event names): response.created
// at once, an output item and content part per kind of text, one
// response.output_text.delta or response.reasoning_text.delta per token,
// and response.completed with the usage.
type responsesSink struct {
	*eventStream
	reasoning int // reasoning tokens sent, for output_tokens_details
}

func newResponsesSink(j *job) (sink, error) {
	e, err := newEventStream(j)
	if err != nil {
		return nil, err
	}
	s := &responsesSink{eventStream: e}
	return s, s.send("response.created", `{"type":"response.created","sequence_number":0,"response":`, s.head("in_progress"), `,"output":[],"usage":null}}`)
}

// head is the response object's leading members, without its closing brace.
func (s *responsesSink) head(status string) string {
	return `{"id":"` + s.j.id + `","object":"response","created_at":` + strconv.FormatInt(s.j.created, 10) +
		`,"status":"` + status + `","error":null,"model":` + string(s.j.srv.modelJSON)
}

func (s *responsesSink) begin() error { return nil }

func (s *responsesSink) token(text []byte, reasoning bool) error {
	if k := kindOf(reasoning); k != s.kind {
		if err := s.open(k); err != nil {
			return err
		}
	}
	typ := "response.output_text.delta"
	if reasoning {
		typ = "response.reasoning_text.delta"
		s.reasoning++
	}
	return s.send(typ, `{"type":"`+typ+`","item_id":"`, s.itemID(), `","output_index":`, itoa(s.blocks-1),
		`,"content_index":0,"delta":"`, string(text), `"}`)
}

// open starts an output item of kind k: a reasoning item, or a message
// with its output_text content part.
func (s *responsesSink) open(k int) error {
	s.kind = k
	s.blocks++
	item := `{"id":"` + s.itemID() + `","type":"message","status":"in_progress","role":"assistant","content":[]}`
	if k == 2 {
		item = `{"id":"` + s.itemID() + `","type":"reasoning","summary":[]}`
	}
	if err := s.send("response.output_item.added", `{"type":"response.output_item.added","output_index":`, itoa(s.blocks-1), `,"item":`, item, `}`); err != nil {
		return err
	}
	part := `{"type":"output_text","text":"","annotations":[]}`
	if k == 2 {
		part = `{"type":"reasoning_text","text":""}`
	}
	return s.send("response.content_part.added", `{"type":"response.content_part.added","item_id":"`, s.itemID(),
		`","output_index":`, itoa(s.blocks-1), `,"content_index":0,"part":`, part, `}`)
}

func (s *responsesSink) itemID() string {
	if s.kind == 2 {
		return "rs_" + itoa(s.blocks)
	}
	return "msg_" + itoa(s.blocks)
}

func (s *responsesSink) malformed() error {
	return s.eventStream.malformed("response.output_text.delta")
}

func (s *responsesSink) finish() error {
	p, c := s.j.req.promptTokens, s.j.req.outputTokens
	return s.send("response.completed", `{"type":"response.completed","response":`, s.head("completed"),
		`,"usage":{"input_tokens":`, itoa(p), `,"input_tokens_details":{"cached_tokens":`, itoa(s.j.cached), `},"output_tokens":`, itoa(c),
		`,"output_tokens_details":{"reasoning_tokens":`, itoa(s.reasoning), `},"total_tokens":`, itoa(p+c), `}}}`)
}

// messagesSink streams as Anthropic's Messages API does (see
// transport/decode_messages.go): message_start with the prompt's usage
// and a ping at once (after prefill with a prefix cache, whose hits it
// reports), a content block per kind of text (thinking, then
// text) with one thinking_delta or text_delta per token, then
// message_delta with the stop reason and output_tokens, and message_stop.
type messagesSink struct{ *eventStream }

func newMessagesSink(j *job) (sink, error) {
	e, err := newEventStream(j)
	if err != nil {
		return nil, err
	}
	s := &messagesSink{e}
	if j.srv.cache != nil {
		return s, nil // message_start waits for prefill, which knows the cache hits
	}
	return s, s.start()
}

// start sends message_start with the prompt's usage, and a ping.
func (s *messagesSink) start() error {
	j := s.j
	err := s.send("message_start", `{"type":"message_start","message":{"id":"`, j.id, `","type":"message","role":"assistant","model":`,
		string(j.srv.modelJSON), `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":`,
		messagesStartUsage(j), `}}`)
	if err != nil {
		return err
	}
	return s.send("ping", `{"type": "ping"}`)
}

// begin sends message_start now when a prefix cache held it back.
func (s *messagesSink) begin() error {
	if s.j.srv.cache != nil {
		return s.start()
	}
	return nil
}

func (s *messagesSink) token(text []byte, reasoning bool) error {
	if k := kindOf(reasoning); k != s.kind {
		if err := s.stopBlock(); err != nil {
			return err
		}
		s.kind = k
		block := `{"type":"text","text":""}`
		if reasoning {
			block = `{"type":"thinking","thinking":"","signature":""}`
		}
		if err := s.send("content_block_start", `{"type":"content_block_start","index":`, itoa(s.blocks), `,"content_block":`, block, `}`); err != nil {
			return err
		}
		s.blocks++
	}
	delta := `{"type":"text_delta","text":"`
	if reasoning {
		delta = `{"type":"thinking_delta","thinking":"`
	}
	return s.send("content_block_delta", `{"type":"content_block_delta","index":`, itoa(s.blocks-1), `,"delta":`, delta, string(text), `"}}`)
}

// stopBlock closes the open content block, if any.
func (s *messagesSink) stopBlock() error {
	if s.kind == 0 {
		return nil
	}
	s.kind = 0
	return s.send("content_block_stop", `{"type":"content_block_stop","index":`, itoa(s.blocks-1), `}`)
}

func (s *messagesSink) malformed() error { return s.eventStream.malformed("content_block_delta") }

// finish ends with max_tokens: the sim always generates the limit.
func (s *messagesSink) finish() error {
	if err := s.stopBlock(); err != nil {
		return err
	}
	err := s.send("message_delta", `{"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":`,
		itoa(s.j.req.outputTokens), `}}`)
	if err != nil {
		return err
	}
	return s.send("message_stop", `{"type":"message_stop"}`)
}

// messagesStartUsage is message_start's usage: the prompt, and with a
// prefix cache its split into cache reads and the uncached rest
// (input_tokens), as Anthropic reports it.
func messagesStartUsage(j *job) string {
	if j.srv.cache == nil {
		return `{"input_tokens":` + itoa(j.req.promptTokens) + `,"output_tokens":1}`
	}
	return `{"input_tokens":` + itoa(j.req.promptTokens-j.cached) + `,"cache_creation_input_tokens":0,"cache_read_input_tokens":` +
		itoa(j.cached) + `,"output_tokens":1}`
}
