package tokenizer

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// matcher finds the non-overlapping matches of a Split or Replace pattern,
// in byte offsets, left to right, like Oniguruma's find_iter in the Rust
// library.
type matcher interface {
	findAll(s string, dst [][2]int) [][2]int
}

// literal matches a fixed string; the Rust library escapes String patterns
// into a regex, which finds the same leftmost non-overlapping occurrences.
type literal string

func (l literal) findAll(s string, dst [][2]int) [][2]int {
	for off := 0; ; {
		i := strings.Index(s[off:], string(l))
		if i < 0 {
			return dst
		}
		dst = append(dst, [2]int{off + i, off + i + len(l)})
		off += i + len(l)
	}
}

// backtracking wraps regexp2. Go's regexp (RE2) has no lookahead, and the
// Llama 3, Qwen and GPT-4o split patterns end in `\s+(?!\S)`; regexp2 is a
// backtracking engine with the same leftmost-first semantics as Oniguruma.
type backtracking struct {
	re *regexp2.Regexp
}

// compileRegex returns the hand-written scanner for a known pattern and a
// regexp2 matcher for any other.
func compileRegex(pattern string) (matcher, error) {
	if m, ok := fastMatchers[pattern]; ok {
		return m, nil
	}
	return compileBacktracking(pattern)
}

func compileBacktracking(pattern string) (matcher, error) {
	re, err := regexp2.Compile(pattern, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("regex %q: %w", pattern, err)
	}
	return backtracking{re}, nil
}

func (b backtracking) findAll(s string, dst [][2]int) [][2]int {
	if s == "" {
		return dst
	}
	runes := []rune(s)
	// regexp2 reports rune indexes; offs maps them back to byte offsets.
	offs := make([]int, len(runes)+1)
	o := 0
	for i, r := range runes {
		offs[i] = o
		o += utf8.RuneLen(r)
	}
	offs[len(runes)] = o
	m, err := b.re.FindRunesMatch(runes)
	for err == nil && m != nil {
		dst = append(dst, [2]int{offs[m.Index], offs[m.Index+m.Length]})
		m, err = b.re.FindNextMatch(m)
	}
	return dst
}
