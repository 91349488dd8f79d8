package transport

import "bytes"

// The scanner's lexical layer: values it does not read are skipped, and
// validated, here.

// skip consumes and validates any value.
func (s *scanner) skip() error {
	s.ws()
	switch c := s.peek(); {
	case c == '{':
		return s.object(func([]byte) error { return s.skip() })
	case c == '[':
		return s.firstOfArray(s.skip)
	case c == '"':
		_, _, err := s.str()
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return errSyntax
}

func (s *scanner) literal(word string) error {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(word)) {
		return errSyntax
	}
	s.pos += len(word)
	return nil
}

// str consumes a string and returns its body between the quotes and
// whether it contains escapes.
func (s *scanner) str() (raw []byte, escaped bool, err error) {
	if s.peek() != '"' {
		return nil, false, errSyntax
	}
	s.pos++
	start := s.pos
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		if !stringSpecial[c] {
			s.pos++
			continue
		}
		switch {
		case c == '"':
			s.pos++
			return s.data[start : s.pos-1], escaped, nil
		case c == '\\':
			if err := s.escape(); err != nil {
				return nil, false, err
			}
			escaped = true
		default: // a raw control character
			return nil, false, errSyntax
		}
	}
	return nil, false, errSyntax
}

// stringSpecial marks the bytes that end the fast path inside a string.
var stringSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func (s *scanner) escape() error {
	if s.pos+1 >= len(s.data) {
		return errSyntax
	}
	switch s.data[s.pos+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.pos += 2
		return nil
	case 'u':
		if s.pos+6 > len(s.data) {
			return errSyntax
		}
		for _, h := range s.data[s.pos+2 : s.pos+6] {
			if !isHex(h) {
				return errSyntax
			}
		}
		s.pos += 6
		return nil
	}
	return errSyntax
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number consumes a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() error {
	if s.peek() == '-' {
		s.pos++
	}
	switch c := s.peek(); {
	case c == '0':
		s.pos++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return errSyntax
	}
	if s.peek() == '.' {
		s.pos++
		if s.digits() == 0 {
			return errSyntax
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.pos++
		if c := s.peek(); c == '+' || c == '-' {
			s.pos++
		}
		if s.digits() == 0 {
			return errSyntax
		}
	}
	return nil
}

func (s *scanner) digits() int {
	start := s.pos
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
	}
	return s.pos - start
}

func (s *scanner) ws() {
	for s.pos < len(s.data) && s.data[s.pos] <= ' ' {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the current byte, or 0 at the end.
func (s *scanner) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}
