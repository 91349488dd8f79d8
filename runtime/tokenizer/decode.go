package tokenizer

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// decoder turns token strings back into text. Each step maps a list of
// strings to a list of strings (Rust's decode_chain) and the final list is
// concatenated.
type decoder interface {
	decodeChain(tokens []string) []string
}

type decSequence []decoder

func (s decSequence) decodeChain(t []string) []string {
	for _, d := range s {
		t = d.decodeChain(t)
	}
	return t
}

// byteLevelDec maps the byte-level alphabet back to bytes and repairs
// invalid UTF-8 the way the reference does (one U+FFFD per maximal invalid
// subpart).
type byteLevelDec struct{}

func (byteLevelDec) decodeChain(t []string) []string {
	var buf []byte
	for _, tok := range t {
		buf = byteLevelUnmap(buf, tok)
	}
	return []string{lossyUTF8(buf)}
}

// metaspaceDec turns the replacement character back into spaces, dropping
// it from the first token unless the prepend scheme is "never".
type metaspaceDec struct {
	replacement rune
	scheme      string
}

func (m metaspaceDec) decodeChain(t []string) []string {
	out := make([]string, len(t))
	for i, tok := range t {
		drop := i == 0 && m.scheme != "never"
		out[i] = strings.Map(func(r rune) rune {
			if r != m.replacement {
				return r
			}
			if drop {
				return -1
			}
			return ' '
		}, tok)
	}
	return out
}

// replaceDec replaces a pattern inside every token.
type replaceDec struct{ replaceNorm }

func (r replaceDec) decodeChain(t []string) []string {
	out := make([]string, len(t))
	for i, tok := range t {
		out[i] = normalizeText(r, tok)
	}
	return out
}

// byteFallbackDec turns runs of "<0xNN>" tokens into the text they encode;
// a run that is not valid UTF-8 becomes one U+FFFD per byte, as in Rust.
type byteFallbackDec struct{}

func (byteFallbackDec) decodeChain(t []string) []string {
	out := make([]string, 0, len(t))
	var pending []byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if utf8.Valid(pending) {
			out = append(out, string(pending))
		} else {
			for range pending {
				out = append(out, "\uFFFD")
			}
		}
		pending = pending[:0]
	}
	for _, tok := range t {
		if b, ok := fallbackByte(tok); ok {
			pending = append(pending, b)
			continue
		}
		flush()
		out = append(out, tok)
	}
	flush()
	return out
}

// fallbackByte parses "<0xNN>" like Rust's u8::from_str_radix (which also
// takes lowercase digits and a leading '+').
func fallbackByte(tok string) (byte, bool) {
	if len(tok) != 6 || !strings.HasPrefix(tok, "<0x") || tok[5] != '>' {
		return 0, false
	}
	digits := tok[3:5]
	if digits[0] == '+' {
		digits = digits[1:]
	}
	v, err := strconv.ParseUint(digits, 16, 8)
	return byte(v), err == nil
}

// fuseDec joins all tokens into one.
type fuseDec struct{}

func (fuseDec) decodeChain(t []string) []string { return []string{strings.Join(t, "")} }

// stripDec removes up to start leading and stop trailing copies of a
// character from every token.
type stripDec struct {
	content     rune
	start, stop int
}

func (s stripDec) decodeChain(t []string) []string {
	out := make([]string, len(t))
	for i, tok := range t {
		r := []rune(tok)
		lo, hi := 0, len(r)
		for lo < s.start && lo < len(r) && r[lo] == s.content {
			lo++
		}
		for k := 0; k < s.stop && hi > lo && r[hi-1] == s.content; k++ {
			hi--
		}
		out[i] = string(r[lo:hi])
	}
	return out
}
