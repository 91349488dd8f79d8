package transport

// Hugging Face TGI (POST /generate_stream and /generate), as its router
// names the types (router/src/lib.rs): a stream is `data:` events of
// StreamResponse {"index", "token": {"id", "text", "logprob", "special"},
// "generated_text": null|"...", "details": null|{"finish_reason",
// "generated_tokens", "seed", "input_length"}}. Each token's text is
// content unless the token is special (the EOS token that closes most
// answers is); the last event repeats the whole answer in generated_text,
// which is no content but the end, with details when parameters.details
// is set: generated_tokens is the answer's count and input_length the
// prompt's. A whole response (GenerateResponse) is {"generated_text",
// "details": {"finish_reason", "generated_tokens", ...}} — no prompt count
// (TGI puts it in the x-prompt-tokens header) — and the root route's
// [{...}] the same in a list. An error, as an event or an HTTP body, is
// ErrorResponse {"error": "...", "error_type": "..."}.
//
// Triton / KServe v2 generate (POST v2/models/{model}/generate_stream and
// /generate, docs/protocol/extension_generate.md): every `data:` event, and
// the whole response, is {"model_name", "model_version", "text_output",
// ...output tensors}; with "stream": true the TensorRT-LLM backend (and
// vLLM's) sends in text_output the newly generated piece only. There is
// no finish reason and no usage, so a stream ends when the server closes
// it, and tokens are counted by tokenizer or chunks. An error is
// {"error": "..."}.

// tgiMember handles a member of a TGI event or response.
func (s *scanner) tgiMember(key []byte) error {
	ev := &s.d.event
	switch string(key) {
	case "token":
		s.ws()
		ev.hasToken = s.peek() == '{'
		return s.objectOrSkip(s.tgiTokenMember)
	case "generated_text":
		s.ws()
		ev.hasGenerated = s.peek() == '"'
		return s.view(&ev.generated, &ev.generatedEsc)
	case "details":
		s.ws()
		if s.peek() == '{' {
			s.p.finished = true
		}
		return s.objectOrSkip(s.tgiDetailsMember)
	case "error":
		return s.errorValue()
	case "error_type":
		return s.view(&ev.errType, nil)
	}
	return s.skip()
}

func (s *scanner) tgiTokenMember(key []byte) error {
	ev := &s.d.event
	switch string(key) {
	case "text":
		return s.view(&ev.token, &ev.tokenEsc)
	case "special":
		s.ws()
		ev.special = s.peek() == 't'
	}
	return s.skip()
}

func (s *scanner) tgiDetailsMember(key []byte) error {
	switch string(key) {
	case "generated_tokens":
		return s.integer(&s.p.output)
	case "input_length":
		return s.integer(&s.p.prompt)
	}
	return s.skip()
}

// tgiEvent judges a scanned TGI object: a stream event's content is its
// token, a whole response's its generated_text; generated_text set is the
// end of a stream even without details.
func (d *decoder) tgiEvent() {
	ev := &d.event
	switch {
	case ev.hasToken && !ev.special && len(ev.token) > 0:
		d.addAnswer(ev.token, ev.tokenEsc)
	case !ev.hasToken && len(ev.generated) > 0:
		d.addAnswer(ev.generated, ev.generatedEsc)
	}
	if ev.hasGenerated {
		d.p.finished = true
	}
	if d.p.errMsg != "" && len(ev.errType) > 0 {
		d.p.errMsg = string(ev.errType) + ": " + d.p.errMsg
	}
}

// kserveMember handles a member of a KServe generate event or response.
func (s *scanner) kserveMember(key []byte) error {
	switch string(key) {
	case "text_output":
		return s.answerText()
	case "error":
		return s.errorValue()
	}
	return s.skip()
}
