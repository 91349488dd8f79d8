package transport

import (
	"errors"
	"strconv"
)

// scanner validates one JSON response object and picks out the few members
// llmbench reads, in a single pass and without allocating: a stream carries
// one such object per token, so this is the client's hottest code. Any
// syntax error makes the whole object malformed, as with encoding/json.
type scanner struct {
	data  []byte
	pos   int
	depth int
	p     *piece
	d     *decoder
}

var errSyntax = errors.New("invalid JSON")

// maxDepth bounds nesting so a hostile body cannot recurse without end.
const maxDepth = 512

// scan parses data as one JSON value and fills the decoder's piece; a
// valid value that is not an object carries nothing llmbench reads.
func (s *scanner) scan() error {
	s.ws()
	var err error
	switch {
	case s.peek() == '{':
		err = s.object(s.member())
	case s.peek() == '[' && s.d.api == TGI: // TGI's root route answers [{...}]
		err = s.firstOfArray(func() error { return s.object(s.tgiMember) })
	default:
		err = s.skip()
	}
	if err != nil {
		return err
	}
	s.ws()
	if s.pos != len(s.data) {
		return errSyntax
	}
	return nil
}

// member is the handler of a top-level member for the decoder's API.
func (s *scanner) member() func(key []byte) error {
	switch s.d.api {
	case Responses:
		return s.responsesMember
	case Messages:
		return s.messagesMember
	case TGI:
		return s.tgiMember
	case KServe:
		return s.kserveMember
	}
	return s.topMember
}

// topMember handles a member of the response object.
func (s *scanner) topMember(key []byte) error {
	switch string(key) {
	case "choices":
		return s.firstOfArray(func() error { return s.object(s.choiceMember) })
	case "usage":
		return s.objectOrSkip(s.usageMember)
	case "error":
		return s.errorValue()
	}
	return s.skip()
}

func (s *scanner) choiceMember(key []byte) error {
	switch string(key) {
	case "delta", "message":
		return s.objectOrSkip(s.textMember)
	case "text":
		return s.answerText()
	case "finish_reason":
		return s.finishReason()
	}
	return s.skip()
}

// finishReason notes a finish_reason that is set: a string ("stop",
// "length", ...), not null, so the stream is known to have ended as the
// server meant it to.
func (s *scanner) finishReason() error {
	s.ws()
	s.p.finished = s.peek() == '"'
	return s.skip()
}

func (s *scanner) textMember(key []byte) error {
	switch string(key) {
	case "content":
		return s.answerText()
	case "reasoning_content", "reasoning":
		return s.text(&s.d.thought)
	case "tool_calls":
		return s.eachObject(s.toolCallMember)
	}
	return s.skip()
}

// toolCallMember reads a tool call's function arguments, which count as
// output (SPEC §5): an answer that is a tool call is not an empty one.
func (s *scanner) toolCallMember(key []byte) error {
	if string(key) == "function" {
		return s.objectOrSkip(func(key []byte) error {
			if string(key) == "arguments" {
				return s.answerText()
			}
			return s.skip()
		})
	}
	return s.skip()
}

func (s *scanner) usageMember(key []byte) error {
	switch string(key) {
	case "prompt_tokens":
		return s.integer(&s.p.prompt)
	case "completion_tokens":
		return s.integer(&s.p.output)
	case "prompt_tokens_details":
		return s.objectOrSkip(s.cachedDetailsMember)
	}
	return s.skip()
}

// cachedDetailsMember reads the cached_tokens of a usage details object
// (chat's prompt_tokens_details, Responses' input_tokens_details).
func (s *scanner) cachedDetailsMember(key []byte) error {
	if string(key) == "cached_tokens" {
		return s.cachedTokens(&s.p.cached)
	}
	return s.skip()
}

// cachedTokens reads a cached-token count into dst and notes that the
// server reported one; null (vLLM without prompt-tokens details) is not
// a report.
func (s *scanner) cachedTokens(dst *int64) error {
	s.ws()
	if s.peek() == 'n' {
		return s.skip()
	}
	s.p.cachedSet = true
	return s.integer(dst)
}

// errorValue reads `"error": "text"` or `"error": {"message": "text"}`.
func (s *scanner) errorValue() error {
	s.ws()
	start := s.pos
	if s.peek() == 'n' {
		return s.skip()
	}
	if err := s.skip(); err != nil {
		return err
	}
	s.p.errMsg = errorMessage(s.data[start:s.pos])
	if s.p.errMsg == "" {
		s.p.errMsg = "error"
	}
	return nil
}

// object parses an object, calling member for each key with the scanner
// positioned at the value; member must consume the value.
func (s *scanner) object(member func(key []byte) error) error {
	s.ws()
	if s.peek() != '{' || s.depth >= maxDepth {
		return errSyntax
	}
	s.pos++
	s.depth++
	err := s.members(member)
	s.depth--
	return err
}

// members parses an object's members after its '{' up to its '}'.
func (s *scanner) members(member func(key []byte) error) error {
	s.ws()
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	for {
		s.ws()
		key, _, err := s.str()
		if err != nil {
			return err
		}
		s.ws()
		if s.peek() != ':' {
			return errSyntax
		}
		s.pos++
		if err := member(key); err != nil {
			return err
		}
		if done, err := s.next('}'); done || err != nil {
			return err
		}
	}
}

// objectOrSkip parses an object with member, or skips a value of any
// other type (a null delta, say).
func (s *scanner) objectOrSkip(member func(key []byte) error) error {
	s.ws()
	if s.peek() != '{' {
		return s.skip()
	}
	return s.object(member)
}

// firstOfArray applies first to element 0 of an array, when it is an
// object, and skips the rest; a value that is not an array is skipped.
func (s *scanner) firstOfArray(first func() error) error {
	return s.array(func(i int) error {
		if i == 0 && s.peek() == '{' {
			return first()
		}
		return s.skip()
	})
}

// eachObject parses every object element of an array with member and
// skips other elements; a value that is not an array is skipped.
func (s *scanner) eachObject(member func(key []byte) error) error {
	return s.array(func(int) error {
		if s.peek() == '{' {
			return s.object(member)
		}
		return s.skip()
	})
}

// array calls elem for each element, positioned at it; elem must consume
// it. A value that is not an array is skipped.
func (s *scanner) array(elem func(i int) error) error {
	s.ws()
	if s.peek() != '[' {
		return s.skip()
	}
	if s.depth >= maxDepth {
		return errSyntax
	}
	s.pos++
	s.depth++
	err := s.elements(elem)
	s.depth--
	return err
}

// elements parses an array's elements after its '[' up to its ']'.
func (s *scanner) elements(elem func(i int) error) error {
	s.ws()
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for i := 0; ; i++ {
		s.ws()
		if err := elem(i); err != nil {
			return err
		}
		if done, err := s.next(']'); done || err != nil {
			return err
		}
	}
}

// next consumes a ',' (more to come) or the closing byte (done).
func (s *scanner) next(closing byte) (done bool, err error) {
	s.ws()
	switch s.peek() {
	case ',':
		s.pos++
		return false, nil
	case closing:
		s.pos++
		return true, nil
	}
	return false, errSyntax
}

// text appends a string value, unescaped, to dst; null is no text.
func (s *scanner) text(dst *[]byte) error {
	s.ws()
	if s.peek() != '"' {
		return s.skip()
	}
	raw, escaped, err := s.str()
	if err != nil {
		return err
	}
	if !escaped {
		*dst = append(*dst, raw...)
		return nil
	}
	*dst = appendUnescaped(*dst, raw)
	return nil
}

// answerText reads an answer string into the decoder; null is no text.
func (s *scanner) answerText() error {
	s.ws()
	if s.peek() != '"' {
		return s.skip()
	}
	raw, escaped, err := s.str()
	if err != nil {
		return err
	}
	s.d.addAnswer(raw, escaped)
	return nil
}

func (s *scanner) integer(dst *int64) error {
	s.ws()
	start := s.pos
	if err := s.skip(); err != nil {
		return err
	}
	*dst, _ = strconv.ParseInt(string(s.data[start:s.pos]), 10, 64) // non-integers count as 0
	return nil
}
