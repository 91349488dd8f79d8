package transport

// The Anthropic Messages API (POST /v1/messages), as anthropic-sdk-python's
// generated types name it (src/anthropic/types/: RawMessageStartEvent,
// RawContentBlockDeltaEvent, RawMessageDeltaEvent, MessageDeltaUsage): a
// stream is `event: <type>` + `data: {"type": <type>, ...}` events, of
// which content_block_delta's delta is content — text_delta's `text` (the
// answer), thinking_delta's `thinking` (reasoning: counts as output, and
// delays ttfo when it leads), input_json_delta's `partial_json` (tool-call
// arguments, which count as output); signature_delta and citations_delta
// are not. message_start's message.usage.input_tokens is the prompt,
// message_delta's usage.output_tokens the (cumulative) answer and its
// delta.stop_reason the end, as is message_stop; `error`
// ({"error": {"type", "message"}}) fails the request; ping,
// content_block_start and content_block_stop carry nothing. A
// non-streaming response is the Message: content[] blocks (text, thinking,
// tool_use's input object), stop_reason and usage.

// messagesMember handles a member of a Messages event or message.
func (s *scanner) messagesMember(key []byte) error {
	switch string(key) {
	case "type":
		return s.view(&s.d.event.typ, nil)
	case "delta":
		return s.objectOrSkip(s.messagesDeltaMember)
	case "usage":
		return s.objectOrSkip(s.inputOutputUsageMember)
	case "message": // message_start's message: only its usage
		return s.objectOrSkip(s.messageStartMember)
	case "content":
		return s.eachObject(s.contentBlockMember)
	case "stop_reason":
		return s.finishReason()
	case "error":
		return s.errorValue()
	}
	return s.skip()
}

func (s *scanner) messagesDeltaMember(key []byte) error {
	switch string(key) {
	case "text", "partial_json":
		return s.answerText()
	case "thinking":
		return s.text(&s.d.thought)
	case "stop_reason":
		return s.finishReason()
	}
	return s.skip()
}

// inputOutputUsageMember reads a usage object that names its counts
// input_tokens and output_tokens, as Anthropic's Messages and OpenAI's
// Responses both do, with the cache counts of each: Responses'
// input_tokens_details.cached_tokens (part of input_tokens), Messages'
// cache_read_input_tokens and cache_creation_input_tokens (not part of
// input_tokens: messagesEvent adds them).
func (s *scanner) inputOutputUsageMember(key []byte) error {
	switch string(key) {
	case "input_tokens":
		return s.integer(&s.p.prompt)
	case "output_tokens":
		return s.integer(&s.p.output)
	case "input_tokens_details":
		return s.objectOrSkip(s.cachedDetailsMember)
	}
	return s.messagesCacheMember(key)
}

// messagesCacheMember reads Messages' cache counts, or skips the value.
func (s *scanner) messagesCacheMember(key []byte) error {
	switch string(key) {
	case "cache_read_input_tokens":
		return s.cachedTokens(&s.p.cached)
	case "cache_creation_input_tokens":
		return s.integer(&s.p.cacheWrite)
	}
	return s.skip()
}

// messageStartMember reads message_start's usage, which counts the prompt
// as the stream opens and so is no sign of its end. Its output_tokens (1
// or a few, before any text) is a placeholder, not the answer's count, so
// only message_delta's is taken.
func (s *scanner) messageStartMember(key []byte) error {
	if string(key) != "usage" {
		return s.skip()
	}
	s.p.early = true
	return s.objectOrSkip(func(key []byte) error {
		if string(key) == "input_tokens" {
			return s.integer(&s.p.prompt)
		}
		return s.messagesCacheMember(key)
	})
}

// contentBlockMember reads one content block of a whole message; a
// tool_use block's input object counts as output in its JSON text, as the
// partial_json deltas of a stream add up to it.
func (s *scanner) contentBlockMember(key []byte) error {
	switch string(key) {
	case "text":
		return s.answerText()
	case "thinking":
		return s.text(&s.d.thought)
	case "input":
		s.ws()
		start := s.pos
		if err := s.skip(); err != nil {
			return err
		}
		s.d.addAnswer(s.data[start:s.pos], false)
		return nil
	}
	return s.skip()
}

// messagesEvent judges a scanned Messages object by its type. Its
// input_tokens counts only the prompt tokens after the last cache
// breakpoint, so the prompt the server processed is input_tokens plus
// the tokens read from the cache plus those written to it: that sum is
// the prompt count (and usage-mode ISL), as OpenAI's prompt_tokens
// includes its cached_tokens.
func (d *decoder) messagesEvent() {
	d.p.prompt += d.p.cached + d.p.cacheWrite
	switch string(d.event.typ) {
	case "message_stop":
		d.p.finished = true
	case "error":
		if d.p.errMsg == "" {
			d.p.errMsg = "error"
		}
	}
}
