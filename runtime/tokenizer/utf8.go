package tokenizer

import "unicode/utf8"

// lossyUTF8 converts bytes to a string the way Rust's
// String::from_utf8_lossy does: each maximal invalid subpart (a lead byte
// and the continuation bytes that were still plausible) becomes one U+FFFD.
// Go's own conversions replace byte by byte or whole runs, and either would
// make Decode differ from the reference when ids cut a character in half.
func lossyUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			out = append(out, c)
			i++
			continue
		}
		n := validPrefix(b[i:])
		if n > 0 {
			out = append(out, b[i:i+n]...)
			i += n
			continue
		}
		out = append(out, "\uFFFD"...)
		i += invalidSubpart(b[i:])
	}
	return string(out)
}

// validPrefix returns the length of the complete, valid UTF-8 sequence at
// the start of b, or 0.
func validPrefix(b []byte) int {
	r, size := utf8.DecodeRune(b)
	if r == utf8.RuneError && size <= 1 {
		return 0
	}
	return size
}

// invalidSubpart returns how many bytes of b (which starts with an invalid
// or truncated sequence) form one maximal subpart, at least 1.
func invalidSubpart(b []byte) int {
	lo, hi, need := contRange(b[0])
	if need == 0 {
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		c := b[n]
		if c < lo || c > hi {
			break
		}
		n++
		lo, hi = 0x80, 0xBF
	}
	return n
}

// contRange gives the allowed range of the first continuation byte after
// lead byte c and the number of continuation bytes it needs (0: invalid lead).
func contRange(c byte) (lo, hi byte, need int) {
	switch {
	case c >= 0xC2 && c <= 0xDF:
		return 0x80, 0xBF, 1
	case c == 0xE0:
		return 0xA0, 0xBF, 2
	case c == 0xED:
		return 0x80, 0x9F, 2
	case c >= 0xE1 && c <= 0xEF:
		return 0x80, 0xBF, 2
	case c == 0xF0:
		return 0x90, 0xBF, 3
	case c >= 0xF1 && c <= 0xF3:
		return 0x80, 0xBF, 3
	case c == 0xF4:
		return 0x80, 0x8F, 3
	}
	return 0, 0, 0
}
