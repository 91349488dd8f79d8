package transport

// agentEvent is what a Responses, Messages or TGI event says of itself,
// gathered while the object is scanned and judged once it is whole, since
// JSON members come in any order: a delta's meaning depends on the event's
// type, which may follow it. Its slices are views of the object.
type agentEvent struct {
	typ      []byte // the object's "type"
	delta    []byte // Responses: a top-level string delta's body
	deltaEsc bool
	msg      []byte // Responses: an error event's top-level message
	msgEsc   bool
	status   []byte // Responses: a response object's status
	// TGI: the streamed token's text and whether it is special (EOS and
	// friends: no content), whether the event has a token at all (a
	// whole response has none, and its generated_text is the answer),
	// generated_text when not null, and error_type.
	token, generated       []byte
	tokenEsc, generatedEsc bool
	hasToken, special      bool
	hasGenerated           bool
	errType                []byte
}

// view keeps a string value's body (between the quotes) as a view of the
// object, noting whether it holds escapes; any other value is skipped.
func (s *scanner) view(dst *[]byte, escaped *bool) error {
	s.ws()
	if s.peek() != '"' {
		return s.skip()
	}
	raw, esc, err := s.str()
	if err != nil {
		return err
	}
	*dst = raw
	if escaped != nil {
		*escaped = esc
	}
	return nil
}

// appendText appends a string body to dst, unescaped when it has escapes.
func appendText(dst, raw []byte, escaped bool) []byte {
	if escaped {
		return appendUnescaped(dst, raw)
	}
	return append(dst, raw...)
}
