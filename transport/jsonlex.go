package transport

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// The scanner's lexical layer: values it does not read are skipped, and
// validated, here. A stream scans one object per token, so these loops
// are the client's hottest code: they work on local copies of the data
// and position (the compiler keeps those in registers, where the
// scanner's fields would be loaded and stored on every byte) and read a
// string's body eight bytes at a time.

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
	data, i := s.data, s.pos
	if i >= len(data) || data[i] != '"' {
		return nil, false, errSyntax
	}
	i++
	start := i
	for {
		// The next byte stringSpecial marks: eight bytes at a time, then
		// the last few of the data one by one. (Written out here, not
		// called: a call per string was a fifth of the scan.)
		for ; i+8 <= len(data); i += 8 {
			if m := stringSpecialLanes(binary.LittleEndian.Uint64(data[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				goto special
			}
		}
		for i < len(data) && !stringSpecial[data[i]] {
			i++
		}
		if i >= len(data) {
			return nil, false, errSyntax
		}
	special:
		switch data[i] {
		case '"':
			s.pos = i + 1
			return data[start:i], escaped, nil
		case '\\':
			n := escapeLen(data[i:])
			if n == 0 {
				return nil, false, errSyntax
			}
			i += n
			escaped = true
		default: // a raw control character
			return nil, false, errSyntax
		}
	}
}

// stringSpecial marks the bytes that end the fast path inside a string.
var stringSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// Byte-lane constants for stringSpecialLanes.
const (
	lanesOne  = 0x0101010101010101
	lanesHigh = 0x8080808080808080
)

// stringSpecialLanes marks, in the high bit of each of its bytes, the
// bytes of w (little-endian: byte 0 is the lowest) that stringSpecial
// marks: a quote, a backslash or a control character. Each term is Bit
// Twiddling Hacks' "has a zero byte" (or "a byte below 0x20") test: a
// borrow starts only at a byte that matches, so the lowest mark is
// always exact (marks above it may be spurious); 0 means no byte matches.
func stringSpecialLanes(w uint64) uint64 {
	quote := w ^ (lanesOne * '"')
	backslash := w ^ (lanesOne * '\\')
	return ((quote-lanesOne)&^quote | (backslash-lanesOne)&^backslash | (w-lanesOne*0x20)&^w) & lanesHigh
}

// escapeLen is the length of the valid escape b starts with (at its
// backslash), 0 when it is not one.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, h := range b[2:6] {
			if !isHex(h) {
				return 0
			}
		}
		return 6
	}
	return 0
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number consumes a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() error {
	data, i := s.data, s.pos
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		i = digits(data, i)
	default:
		return errSyntax
	}
	if i < len(data) && data[i] == '.' {
		end := digits(data, i+1)
		if end == i+1 {
			return errSyntax
		}
		i = end
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		end := digits(data, i)
		if end == i {
			return errSyntax
		}
		i = end
	}
	s.pos = i
	return nil
}

// digits is the index of the first byte at or after i that is not a
// decimal digit.
func digits(data []byte, i int) int {
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	return i
}

// ws skips whitespace. Compact JSON has none between tokens, so the
// common case is one comparison, inlined.
func (s *scanner) ws() {
	if s.pos < len(s.data) && s.data[s.pos] > ' ' {
		return
	}
	s.space()
}

func (s *scanner) space() {
	data, i := s.data, s.pos
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	s.pos = i
}

// peek returns the current byte, or 0 at the end.
func (s *scanner) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}
