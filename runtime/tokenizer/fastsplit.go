package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// The split patterns of the popular byte-level tokenizers are fixed strings
// that appear verbatim in their tokenizer.json. For those, a hand-written
// scanner replaces regexp2, which spends most of the encoding time
// backtracking through alternatives. Each scanner follows its pattern's
// leftmost-first alternation literally (the comments give the alternative
// being tried) and is checked against regexp2 by TestFastSplitters and
// FuzzFastSplitters, so the reference decides in the end.

// Patterns with a hand-written scanner, as they appear in tokenizer.json.
const (
	// cl100kPattern: Llama 3 and GPT-4's cl100k_base.
	cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// qwenPattern: Qwen 2 and 3, single digits.
	qwenPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// o200kPattern: GPT-4o's o200k_base.
	o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// fastMatchers maps a pattern to its scanner.
var fastMatchers = map[string]matcher{
	cl100kPattern: scanner{next: cl100kNext(3)},
	qwenPattern:   scanner{next: cl100kNext(1)},
	o200kPattern:  scanner{next: o200kNext},
	gpt2Pattern:   scanner{next: gpt2Next},
}

// scanner finds matches by asking next for the end of the match starting
// at i, or -1 when none starts there.
type scanner struct {
	next func(s string, i int) int
}

func (sc scanner) findAll(s string, dst [][2]int) [][2]int {
	for i := 0; i < len(s); {
		if end := sc.next(s, i); end > i {
			dst = append(dst, [2]int{i, end})
			i = end
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return dst
}

// at decodes the rune at i; past the end it returns -1.
func at(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func isL(r rune) bool {
	return r >= 0 && (r < utf8.RuneSelf && isASCIILetter(r) || r >= utf8.RuneSelf && unicode.IsLetter(r))
}
func isN(r rune) bool {
	return r >= 0 && (r < utf8.RuneSelf && '0' <= r && r <= '9' || r >= utf8.RuneSelf && unicode.IsNumber(r))
}
func isS(r rune) bool     { return r >= 0 && unicode.IsSpace(r) }
func isCRLF(r rune) bool  { return r == '\r' || r == '\n' }
func isOther(r rune) bool { return r >= 0 && !isS(r) && !isL(r) && !isN(r) } // [^\s\p{L}\p{N}]

func isASCIILetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

// run returns the end of the run of runes satisfying f from i.
func run(s string, i int, f func(rune) bool) int {
	for {
		r, size := at(s, i)
		if !f(r) {
			return i
		}
		i += size
	}
}

// contraction matches (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or returns -1;
// ſ (U+017F) case-folds to s, as in Oniguruma and regexp2.
func contraction(s string, i int, fold bool) int {
	if i >= len(s) || s[i] != '\'' {
		return -1
	}
	r, size := at(s, i+1)
	if fold {
		r = unicode.ToLower(r)
		if r == 'ſ' {
			r = 's'
		}
	}
	switch r {
	case 's', 't', 'm', 'd':
		return i + 1 + size
	case 'r', 'v', 'l':
		want := map[rune]rune{'r': 'e', 'v': 'e', 'l': 'l'}[r]
		r2, size2 := at(s, i+1+size)
		if fold {
			r2 = unicode.ToLower(r2)
		}
		if r2 == want {
			return i + 1 + size + size2
		}
	}
	return -1
}

// whitespace tries \s*[\r\n]+ | \s+(?!\S) | \s+ at i.
func whitespace(s string, i int) int {
	end := run(s, i, isS)
	if end == i {
		return -1
	}
	for k := end; k > i; { // \s*[\r\n]+: up to the last line break of the run
		r, size := utf8.DecodeLastRuneInString(s[:k])
		if isCRLF(r) {
			return k
		}
		k -= size
	}
	return trailingSpace(s, i, end)
}

// trailingSpace is \s+(?!\S)|\s+ for the whitespace run [i, end).
func trailingSpace(s string, i, end int) int {
	if end == len(s) {
		return end
	}
	_, size := utf8.DecodeLastRuneInString(s[:end])
	if end-size > i {
		return end - size // leave the last space to the next word
	}
	return end
}

// cl100kNext scans the Llama 3 / cl100k pattern, or Qwen's with maxDigits 1.
func cl100kNext(maxDigits int) func(string, int) int {
	return func(s string, i int) int {
		if e := contraction(s, i, true); e > 0 {
			return e
		}
		c, size := at(s, i)
		n, _ := at(s, i+size)
		switch {
		case isL(c): // [^\r\n\p{L}\p{N}]?\p{L}+
			return run(s, i, isL)
		case !isCRLF(c) && !isN(c) && isL(n):
			return run(s, i+size, isL)
		case isN(c): // \p{N}{1,3}
			e := i
			for k := 0; k < maxDigits; k++ {
				r, sz := at(s, e)
				if !isN(r) {
					break
				}
				e += sz
			}
			return e
		case c == ' ' && isOther(n): // ?[^\s\p{L}\p{N}]+[\r\n]*
			return run(s, run(s, i+size, isOther), isCRLF)
		case isOther(c):
			return run(s, run(s, i, isOther), isCRLF)
		}
		return whitespace(s, i)
	}
}

// gpt2Next scans the GPT-2 pattern the ByteLevel pre-tokenizer uses.
func gpt2Next(s string, i int) int {
	if e := contraction(s, i, false); e > 0 {
		return e
	}
	c, size := at(s, i)
	start := i
	if c == ' ' {
		if n, _ := at(s, i+size); isL(n) || isN(n) || isOther(n) {
			start, c = i+size, n
		}
	}
	switch {
	case isL(c): // ?\p{L}+
		return run(s, start, isL)
	case isN(c): // ?\p{N}+
		return run(s, start, isN)
	case isOther(c): // ?[^\s\p{L}\p{N}]+
		return run(s, start, isOther)
	}
	end := run(s, i, isS) // \s+(?!\S)|\s+
	if end == i {
		return -1
	}
	return trailingSpace(s, i, end)
}

// o200k classes: U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], W = [\p{Ll}\p{Lm}\p{Lo}\p{M}].
func isUpperish(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

func isLowerish(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
}

// isPrefix is [^\r\n\p{L}\p{N}].
func isPrefix(r rune) bool { return r >= 0 && !isCRLF(r) && !isL(r) && !isN(r) }

// o200kWord1 matches U*W+ from a (greedy, with the backtracking the regex
// does when the U run ends in characters that are also W), or -1.
func o200kWord1(s string, a int) int {
	u := run(s, a, isUpperish)
	if r, _ := at(s, u); isLowerish(r) {
		return run(s, u, isLowerish)
	}
	for k := u; k > a; {
		r, size := utf8.DecodeLastRuneInString(s[:k])
		if isLowerish(r) {
			return k
		}
		k -= size
	}
	return -1
}

// o200kWord2 matches U+W* from a, or -1.
func o200kWord2(s string, a int) int {
	if r, _ := at(s, a); !isUpperish(r) {
		return -1
	}
	return run(s, run(s, a, isUpperish), isLowerish)
}

// o200kNext scans the GPT-4o pattern.
func o200kNext(s string, i int) int {
	c, size := at(s, i)
	for _, word := range []func(string, int) int{o200kWord1, o200kWord2} {
		if isPrefix(c) { // [^\r\n\p{L}\p{N}]? first taken, then not
			if e := word(s, i+size); e > 0 {
				return withContraction(s, e)
			}
		}
		if e := word(s, i); e > 0 {
			return withContraction(s, e)
		}
	}
	n, _ := at(s, i+size)
	switch {
	case isN(c): // \p{N}{1,3}
		e := i + size
		for k := 0; k < 2; k++ {
			r, sz := at(s, e)
			if !isN(r) {
				break
			}
			e += sz
		}
		return e
	case c == ' ' && isOther(n): // ?[^\s\p{L}\p{N}]+[\r\n/]*
		return run(s, run(s, i+size, isOther), isCRLFSlash)
	case isOther(c):
		return run(s, run(s, i, isOther), isCRLFSlash)
	}
	return whitespace(s, i)
}

func isCRLFSlash(r rune) bool { return r == '\r' || r == '\n' || r == '/' }

// withContraction appends an optional (?i:'s|'t|'re|'ve|'m|'ll|'d).
func withContraction(s string, e int) int {
	if c := contraction(s, e, true); c > 0 {
		return c
	}
	return e
}
