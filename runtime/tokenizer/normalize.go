package tokenizer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// normalizer rewrites a segment of input text before pre-tokenization.
//
// lead is the number of leading bytes of s that come from the first
// character of the original input (0 when s does not start the input); each
// normalizer returns it for its output. The Rust library tracks the
// alignment of every byte; the only decision that depends on it here is
// Metaspace's prepend_scheme "first", and the lead is enough for that.
type normalizer interface {
	normalize(s string, lead int) (string, int)
}

// normalizeText is the common case where the lead does not matter.
func normalizeText(n normalizer, s string) string {
	out, _ := n.normalize(s, 0)
	return out
}

// firstRuneLen is the initial lead of a segment that starts the input.
func firstRuneLen(s string) int {
	_, size := utf8.DecodeRuneInString(s)
	return size
}

type normSequence []normalizer

func (seq normSequence) normalize(s string, lead int) (string, int) {
	for _, n := range seq {
		s, lead = n.normalize(s, lead)
	}
	return s, lead
}

// prependNorm adds a prefix to non-empty text (Llama 2 and Mistral's
// legacy tokenizer.json prepend "▁" to every segment). The prefix is
// aligned with the first character, as in Rust.
type prependNorm struct{ prefix string }

func (p prependNorm) normalize(s string, lead int) (string, int) {
	if s == "" {
		return s, lead
	}
	if lead > 0 {
		lead += len(p.prefix)
	}
	return p.prefix + s, lead
}

// replaceNorm replaces every match of a String or Regex pattern.
type replaceNorm struct {
	pattern matcher
	content string
}

func (r replaceNorm) normalize(s string, lead int) (string, int) {
	matches := r.pattern.findAll(s, nil)
	if len(matches) == 0 {
		return s, lead
	}
	var b strings.Builder
	b.Grow(len(s))
	prev, newLead := 0, -1
	for _, m := range matches {
		if newLead < 0 && lead <= m[0] {
			newLead = b.Len() + lead - prev // the lead ends before this match
		}
		b.WriteString(s[prev:m[0]])
		b.WriteString(r.content)
		// Rust aligns the replacement with the last replaced byte, so it
		// stays in the lead only if the whole match was.
		if newLead < 0 && m[1] > lead {
			newLead = b.Len() - len(r.content)
		}
		prev = m[1]
	}
	if newLead < 0 {
		newLead = b.Len() + max(0, lead-prev)
	}
	b.WriteString(s[prev:])
	return b.String(), newLead
}

// lowercaseNorm lowercases character by character like Rust's
// char::to_lowercase, whose only multi-rune result is U+0130.
type lowercaseNorm struct{}

func lower(s string) string {
	return strings.Map(unicode.ToLower, strings.ReplaceAll(s, "\u0130", "i\u0307"))
}

func (lowercaseNorm) normalize(s string, lead int) (string, int) {
	return lower(s), len(lower(s[:lead]))
}

// stripNorm removes leading and/or trailing whitespace.
type stripNorm struct{ left, right bool }

func (st stripNorm) normalize(s string, lead int) (string, int) {
	if st.left {
		t := strings.TrimLeftFunc(s, unicode.IsSpace)
		lead = max(0, lead-(len(s)-len(t)))
		s = t
	}
	if st.right {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
		lead = min(lead, len(s))
	}
	return s, lead
}

// stripAccentsNorm drops combining marks; it is meant to follow NFD.
type stripAccentsNorm struct{}

func stripMarks(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.M, r) {
			return -1
		}
		return r
	}, s)
}

func (stripAccentsNorm) normalize(s string, lead int) (string, int) {
	return stripMarks(s), len(stripMarks(s[:lead]))
}

// byteLevelNorm spells the text in the byte-level alphabet.
type byteLevelNorm struct{}

func (byteLevelNorm) normalize(s string, lead int) (string, int) {
	return byteLevelMap(s), len(byteLevelMap(s[:lead]))
}
