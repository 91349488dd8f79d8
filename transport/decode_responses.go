package transport

// The OpenAI Responses API (POST /v1/responses), as openai-python's
// generated types name it (src/openai/types/responses/): a stream is
// `event: <type>` + `data: {"type": <type>, ...}` events, of which
//   - response.output_text.delta (ResponseTextDeltaEvent), and
//     response.refusal.delta, {"delta": "..."}, are answer text;
//   - response.function_call_arguments.delta and
//     response.custom_tool_call_input.delta are tool-call arguments, which
//     count as output (SPEC §5);
//   - response.reasoning_text.delta and
//     response.reasoning_summary_text.delta are reasoning, which counts as
//     output and, when it leads, delays ttfo as reasoning_content does;
//   - response.completed and response.incomplete (ResponseCompletedEvent)
//     end the answer and carry response.usage (ResponseUsage:
//     input_tokens, output_tokens, input_tokens_details.cached_tokens);
//   - response.failed carries response.error (ResponseError: code,
//     message) and error (ResponseErrorEvent) a top-level message: both
//     fail the request.
// Every other event (response.created, response.output_item.added,
// response.content_part.added, the *.done events that repeat the text
// whole) carries no content. A non-streaming response is the Response
// object: output[] items, a message's content[] output_text parts, a
// reasoning item's content[] reasoning_text and summary[] summary_text
// parts, a function_call's arguments, with usage and status.

// responsesMember handles a member of a Responses event or response.
func (s *scanner) responsesMember(key []byte) error {
	ev := &s.d.event
	switch string(key) {
	case "type":
		return s.view(&ev.typ, nil)
	case "delta":
		return s.view(&ev.delta, &ev.deltaEsc)
	case "message":
		return s.view(&ev.msg, &ev.msgEsc)
	case "response": // an event's response object: its end, not its text
		return s.objectOrSkip(s.responseMember)
	case "output":
		return s.eachObject(s.outputItemMember)
	case "usage":
		return s.objectOrSkip(s.inputOutputUsageMember)
	case "status":
		return s.view(&ev.status, nil)
	case "error":
		return s.errorValue()
	}
	return s.skip()
}

// responseMember reads the response object of response.completed,
// response.failed and friends. Its output repeats the streamed text, so
// only usage, status and error are read.
func (s *scanner) responseMember(key []byte) error {
	switch string(key) {
	case "usage":
		return s.objectOrSkip(s.inputOutputUsageMember)
	case "status":
		return s.view(&s.d.event.status, nil)
	case "error":
		return s.errorValue()
	}
	return s.skip()
}

// outputItemMember reads one output item of a whole response.
func (s *scanner) outputItemMember(key []byte) error {
	switch string(key) {
	case "content":
		return s.eachPart(false)
	case "summary":
		return s.eachPart(true)
	case "arguments": // a function_call item
		return s.answerText()
	}
	return s.skip()
}

// eachPart reads an item's content or summary parts: summary parts and
// reasoning_text parts are reasoning, any other part's text is answer.
func (s *scanner) eachPart(thought bool) error {
	return s.array(func(int) error {
		if s.peek() != '{' {
			return s.skip()
		}
		var typ, text []byte
		var esc bool
		err := s.object(func(key []byte) error {
			switch string(key) {
			case "type":
				return s.view(&typ, nil)
			case "text":
				return s.view(&text, &esc)
			}
			return s.skip()
		})
		switch {
		case err != nil:
			return err
		case thought || string(typ) == "reasoning_text":
			s.d.thought = appendText(s.d.thought, text, esc)
		case len(text) > 0:
			s.d.addAnswer(text, esc)
		}
		return nil
	})
}

// responsesEvent judges a scanned Responses object by its type.
func (d *decoder) responsesEvent() {
	ev := &d.event
	switch string(ev.typ) {
	case "response.output_text.delta", "response.refusal.delta",
		"response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
		if len(ev.delta) > 0 {
			d.addAnswer(ev.delta, ev.deltaEsc)
		}
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
		d.thought = appendText(d.thought, ev.delta, ev.deltaEsc)
	case "response.completed", "response.incomplete":
		d.p.finished = true
	case "response.failed":
		if d.p.errMsg == "" {
			d.p.errMsg = "response failed"
		}
	case "error":
		d.p.errMsg = string(appendText(nil, ev.msg, ev.msgEsc))
		if d.p.errMsg == "" {
			d.p.errMsg = "error"
		}
	case "", "response": // a whole Response object
		switch string(ev.status) {
		case "completed", "incomplete":
			d.p.finished = true
		case "failed":
			if d.p.errMsg == "" {
				d.p.errMsg = "response failed"
			}
		}
	}
}
