package tokenizer

import (
	"slices"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// unicodeForm is NFC, NFD, NFKC or NFKD (Qwen normalizes with NFC).
//
// golang.org/x/text implements the Stream-Safe Text Format: after 30
// non-starters in a row it inserts U+034F and stops reordering across it.
// The Rust unicode-normalization crate does not, so text with long runs of
// combining marks ("Zalgo" text) is normalized here with the plain UAX #15
// algorithm instead. Everything else takes x/text's fast path.
type unicodeForm struct {
	form    norm.Form
	compose bool
}

func newUnicodeForm(f norm.Form) unicodeForm {
	return unicodeForm{form: f, compose: f == norm.NFC || f == norm.NFKC}
}

func (u unicodeForm) normalize(s string, lead int) (string, int) {
	out := u.apply(s)
	if lead == 0 {
		return out, 0
	}
	// The output of the first character is what the following combining
	// marks did not contribute: Rust keeps a composed character aligned
	// with its starter and an uncomposed mark aligned with itself.
	end := lead
	for end < len(s) {
		p := norm.NFD.PropertiesString(s[end:])
		if p.LeadCCC() == 0 {
			break
		}
		end += max(p.Size(), 1)
	}
	head := u.apply(s[:end])
	marks := u.apply(s[lead:end])
	return out, min(len(out), len(head)-commonSuffix(head, marks))
}

// commonSuffix is the byte length of the longest run of whole runes that
// ends both a and b.
func commonSuffix(a, b string) int {
	n := 0
	for len(a) > n && len(b) > n {
		ra, sa := utf8.DecodeLastRuneInString(a[:len(a)-n])
		rb, sb := utf8.DecodeLastRuneInString(b[:len(b)-n])
		if ra != rb || sa != sb {
			break
		}
		n += sa
	}
	return n
}

func (u unicodeForm) apply(s string) string {
	if !hasLongMarkRun(s) {
		return u.form.String(s)
	}
	d := u.decompose(s)
	if u.compose {
		d = composeRunes(d)
	}
	return string(d)
}

// longMarkRun is a conservative threshold: decompositions can add a few
// non-starters to a run, and x/text breaks runs at 30.
const longMarkRun = 20

func hasLongMarkRun(s string) bool {
	run := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			run = 0
			i++
			continue
		}
		p := norm.NFD.PropertiesString(s[i:])
		if p.LeadCCC() != 0 || p.CCC() != 0 {
			run++
			if run >= longMarkRun {
				return true
			}
		} else {
			run = 0
		}
		i += max(p.Size(), 1)
	}
	return false
}

// decompose fully decomposes s (canonically, or compatibly for NFK*) and
// puts every run of non-starters in canonical order.
func (u unicodeForm) decompose(s string) []rune {
	decomp := norm.NFD
	if u.form == norm.NFKC || u.form == norm.NFKD {
		decomp = norm.NFKD
	}
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if h, ok := decomposeHangul(r); ok {
			out = append(out, h...)
			continue
		}
		if d := decomp.PropertiesString(string(r)).Decomposition(); d != nil {
			out = append(out, []rune(string(d))...)
			continue
		}
		out = append(out, r)
	}
	for i := 0; i < len(out); {
		if ccc(out[i]) == 0 {
			i++
			continue
		}
		j := i
		for j < len(out) && ccc(out[j]) != 0 {
			j++
		}
		slices.SortStableFunc(out[i:j], func(a, b rune) int { return int(ccc(a)) - int(ccc(b)) })
		i = j
	}
	return out
}

func ccc(r rune) uint8 { return norm.NFD.PropertiesString(string(r)).CCC() }

// composeRunes is the canonical composition algorithm of UAX #15.
func composeRunes(s []rune) []rune {
	if len(s) == 0 {
		return s
	}
	starter := 0
	lastClass := int(ccc(s[0]))
	if lastClass != 0 {
		lastClass = 256 // no starter yet: nothing may compose
	}
	out := 1
	for i := 1; i < len(s); i++ {
		ch := s[i]
		class := int(ccc(ch))
		if c, ok := composePair(s[starter], ch); ok && (lastClass < class || lastClass == 0) {
			s[starter] = c
			continue
		}
		if class == 0 {
			starter = out
		}
		lastClass = class
		s[out] = ch
		out++
	}
	return s[:out]
}

// composePair returns the primary composite of a and b, asking x/text
// (whose NFC of a two-rune string is one rune exactly when they compose).
func composePair(a, b rune) (rune, bool) {
	if c, ok := composeHangul(a, b); ok {
		return c, true
	}
	r := []rune(norm.NFC.String(string([]rune{a, b})))
	if len(r) == 1 {
		return r[0], true
	}
	return 0, false
}

const (
	hangulS, hangulL, hangulV, hangulT = 0xAC00, 0x1100, 0x1161, 0x11A7
	hangulLCount, hangulVCount         = 19, 21
	hangulTCount                       = 28
	hangulNCount                       = hangulVCount * hangulTCount
	hangulSCount                       = hangulLCount * hangulNCount
)

func decomposeHangul(r rune) ([]rune, bool) {
	i := r - hangulS
	if i < 0 || i >= hangulSCount {
		return nil, false
	}
	l, v, t := hangulL+i/hangulNCount, hangulV+(i%hangulNCount)/hangulTCount, hangulT+i%hangulTCount
	if t == hangulT {
		return []rune{l, v}, true
	}
	return []rune{l, v, t}, true
}

func composeHangul(a, b rune) (rune, bool) {
	if a >= hangulL && a < hangulL+hangulLCount && b >= hangulV && b < hangulV+hangulVCount {
		return hangulS + ((a-hangulL)*hangulVCount+(b-hangulV))*hangulTCount, true
	}
	if si := a - hangulS; si >= 0 && si < hangulSCount && si%hangulTCount == 0 && b > hangulT && b < hangulT+hangulTCount {
		return a + (b - hangulT), true
	}
	return 0, false
}
