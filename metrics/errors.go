package metrics

import (
	"cmp"
	"slices"
	"strings"
)

// errorKey is what makes two failures "the same error" in the error list:
// class, status and the message with its per-request parts masked (see
// NormalizeMessage).
type errorKey struct {
	class   ErrorClass
	status  int
	message string
}

// errorGroup is one entry of the error list being accumulated.
type errorGroup struct {
	count int
	// example is a real message of the group: the smallest in byte order,
	// so the list does not depend on the order records were added in (a
	// merge of shards gives the same list as the single run).
	example string
}

// errorGroups accumulates failures into groups.
type errorGroups map[errorKey]*errorGroup

func (g errorGroups) add(f *Failure) {
	k := errorKey{f.Class, f.Status, NormalizeMessage(f.Message)}
	e, ok := g[k]
	if !ok {
		g[k] = &errorGroup{count: 1, example: f.Message}
		return
	}
	e.count++
	e.example = min(e.example, f.Message)
}

// errorList turns the groups into the error list, most frequent first;
// ties are ordered by class, status and message so a report lists the
// same run the same way every time. Each entry's Message is a real
// message of its group.
func errorList(groups errorGroups) []ErrorCount {
	if len(groups) == 0 {
		return nil
	}
	list := make([]ErrorCount, 0, len(groups))
	for k, e := range groups {
		list = append(list, ErrorCount{Class: k.class, Status: k.status, Message: e.example, Count: e.count})
	}
	slices.SortFunc(list, func(a, b ErrorCount) int {
		return cmp.Or(
			cmp.Compare(b.Count, a.Count),
			cmp.Compare(a.Class, b.Class),
			cmp.Compare(a.Status, b.Status),
			cmp.Compare(a.Message, b.Message),
		)
	})
	return list
}

// NormalizeMessage masks the parts of an error message that differ from
// one request to the next, so 400 resets from 400 ephemeral ports are one
// error, not 400. In order:
//
//   - a UUID (8-4-4-4-12 hex digits, either case) becomes <uuid>;
//   - a word (a maximal run of ASCII letters and digits) of 8 or more hex
//     digits with at least one digit and one letter a–f becomes <hex>
//     (request ids such as chatcmpl-9f86d081884c; no English word has a
//     digit, and a plain number is left to the next rule);
//   - any run of 4 or more decimal digits becomes <n>: every ephemeral
//     port (so "127.0.0.1:54321->127.0.0.1:8000" is
//     "127.0.0.1:<n>->127.0.0.1:<n>"), timestamps, numeric ids, byte and
//     token counts. Shorter numbers (status codes, small counts, the parts
//     of an IP address, ports below 1000) are kept.
//
// Everything else, hosts included, is kept as is.
func NormalizeMessage(msg string) string {
	var b strings.Builder
	for i := 0; i < len(msg); {
		if !isAlnum(msg[i]) {
			b.WriteByte(msg[i])
			i++
			continue
		}
		if isUUID(msg[i:]) && (i+36 == len(msg) || !isAlnum(msg[i+36])) {
			b.WriteString("<uuid>")
			i += 36
			continue
		}
		j := i
		for j < len(msg) && isAlnum(msg[j]) {
			j++
		}
		writeWord(&b, msg[i:j])
		i = j
	}
	return b.String()
}

// writeWord writes one word of a message, masked as NormalizeMessage says.
func writeWord(b *strings.Builder, w string) {
	if len(w) >= 8 && isHexID(w) {
		b.WriteString("<hex>")
		return
	}
	for i := 0; i < len(w); {
		j := i
		for j < len(w) && isDigit(w[j]) {
			j++
		}
		switch {
		case j-i >= 4:
			b.WriteString("<n>")
		case j > i:
			b.WriteString(w[i:j])
		default:
			b.WriteByte(w[i])
			j++
		}
		i = j
	}
}

// isHexID reports a word of hex digits mixing decimal digits and letters.
func isHexID(w string) bool {
	digit, letter := false, false
	for i := range len(w) {
		switch c := w[i]; {
		case isDigit(c):
			digit = true
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			letter = true
		default:
			return false
		}
	}
	return digit && letter
}

// isUUID reports whether s starts with a UUID's 36 characters.
func isUUID(s string) bool {
	if len(s) < 36 {
		return false
	}
	for i := range 36 {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
			continue
		}
		if !isDigit(c) && !(c >= 'a' && c <= 'f') && !(c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
