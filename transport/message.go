package transport

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/llmbench/llmbench/metrics"
)

// maxMessage bounds a failure message in bytes: long enough for a server's
// error text, short enough that a run of errors stays a readable list.
const maxMessage = 200

// fail builds a Failure whose message is fit for every artifact; every
// Failure the transport records is made here, so no raw server byte can
// reach records.parquet (which readers validate as UTF-8) or a console.
func fail(class metrics.ErrorClass, status int, msg string) *metrics.Failure {
	return &metrics.Failure{Class: class, Status: status, Message: message(msg)}
}

// message makes s one short line of valid UTF-8 without control
// characters: an invalid byte and a control character other than a
// newline or tab become `\xNN` (`\u0085` for the C1 controls), so a gzip
// body stays recognisable as `\x1f\x8b...`; newlines and tabs become
// spaces; the text is cut at a rune boundary at maxMessage bytes, with
// "…".
func message(s string) string {
	s = strings.TrimSpace(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		piece := printable(r, size, s[i])
		if b.Len()+len(piece) > maxMessage {
			b.WriteString("…")
			break
		}
		b.WriteString(piece)
		i += size
	}
	return b.String()
}

// printable is what one decoded rune contributes to a message.
func printable(r rune, size int, first byte) string {
	switch {
	case r == utf8.RuneError && size == 1:
		return fmt.Sprintf(`\x%02x`, first)
	case r == '\n' || r == '\r' || r == '\t':
		return " "
	case r < utf8.RuneSelf && unicode.IsControl(r):
		return fmt.Sprintf(`\x%02x`, r)
	case unicode.IsControl(r):
		return fmt.Sprintf(`\u%04x`, r)
	}
	return string(r)
}

// validText is out as valid UTF-8 — each invalid byte the server sent
// replaced by U+FFFD — with the chunk end offsets in ends moved to match,
// so the record's Output can be written to Parquet and still be split into
// its chunks. Valid text (the rule; a character split across two events is
// valid once joined) is returned as is.
func validText(out []byte, ends []int32) string {
	if utf8.Valid(out) {
		return string(out)
	}
	fixed := make([]byte, 0, len(out)+len(out)/8)
	j := 0
	for i := 0; i < len(out); {
		for j < len(ends) && int(ends[j]) <= i {
			ends[j] = int32(len(fixed))
			j++
		}
		r, size := utf8.DecodeRune(out[i:])
		if r == utf8.RuneError && size == 1 {
			fixed = append(fixed, string(utf8.RuneError)...)
		} else {
			fixed = append(fixed, out[i:i+size]...)
		}
		i += size
	}
	for ; j < len(ends); j++ {
		ends[j] = int32(len(fixed))
	}
	return string(fixed)
}
