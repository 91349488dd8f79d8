package tokenizer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// preTokenizer splits normalized text into the pieces the model encodes
// independently; merges never cross a piece boundary.
type preTokenizer interface {
	preTokenize(p piece, out []piece) []piece
}

// preSequence applies each step to every piece the previous step produced.
type preSequence []preTokenizer

func (s preSequence) preTokenize(p piece, out []piece) []piece {
	cur := []piece{p}
	next := make([]piece, 0, estimatePieces(p.text))
	for _, step := range s {
		next = next[:0]
		for _, q := range cur {
			next = step.preTokenize(q, next)
		}
		cur, next = next, cur
	}
	return append(out, cur...)
}

// splitPre is the Split pre-tokenizer: a String or Regex pattern, a
// delimiter behavior and an optional inversion (GPT-4o splits with
// behavior Removed and invert true, keeping only the matches).
type splitPre struct {
	pattern  matcher
	behavior behavior
	invert   bool
}

func (s splitPre) preTokenize(p piece, out []piece) []piece {
	n := estimatePieces(p.text)
	matches := s.pattern.findAll(p.text, make([][2]int, 0, n))
	return splitSpans(p, spansOf(p.text, matches, s.invert, make([]span, 0, 2*len(matches)+1)), s.behavior, out)
}

// estimatePieces sizes buffers for splitting s: natural text averages a
// little over four bytes per piece.
func estimatePieces(s string) int { return len(s)/4 + 1 }

// gpt2Pattern is the split the ByteLevel pre-tokenizer applies itself when
// use_regex is true (GPT-2, RoBERTa and their descendants).
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// byteLevelPre optionally adds a leading space and splits with the GPT-2
// pattern, then spells every piece in the byte-level alphabet.
type byteLevelPre struct {
	addPrefixSpace bool
	regex          matcher // nil when use_regex is false
}

func (b byteLevelPre) preTokenize(p piece, out []piece) []piece {
	if b.addPrefixSpace && p.text != "" && !strings.HasPrefix(p.text, " ") {
		p.text = " " + p.text
		if p.lead > 0 {
			p.lead++
		}
	}
	start := len(out)
	if b.regex != nil {
		matches := b.regex.findAll(p.text, nil)
		out = splitSpans(p, spansOf(p.text, matches, false, nil), isolated, out)
	} else if p.text != "" {
		out = append(out, p)
	}
	for i := start; i < len(out); i++ {
		out[i].lead = len(byteLevelMap(out[i].text[:out[i].lead]))
		out[i].text = byteLevelMap(out[i].text)
	}
	return out
}

// metaspacePre replaces spaces with the replacement character (usually
// "▁"), prepends one according to prepend_scheme, and optionally splits so
// that each replacement starts a new piece.
type metaspacePre struct {
	replacement string
	scheme      string // "always", "first" or "never"
	split       bool
}

func (m metaspacePre) preTokenize(p piece, out []piece) []piece {
	p.lead = len(strings.ReplaceAll(p.text[:p.lead], " ", m.replacement))
	p.text = strings.ReplaceAll(p.text, " ", m.replacement)
	if p.text != "" && !strings.HasPrefix(p.text, m.replacement) &&
		(m.scheme == "always" || (m.scheme == "first" && p.lead > 0)) {
		p.text = m.replacement + p.text
		if p.lead > 0 {
			p.lead += len(m.replacement)
		}
	}
	if !m.split {
		if p.text == "" {
			return out
		}
		return append(out, p)
	}
	matches := literal(m.replacement).findAll(p.text, nil)
	return splitSpans(p, spansOf(p.text, matches, false, nil), mergedWithNext, out)
}

// digitsPre isolates numeric characters (Unicode N, as Rust's
// char::is_numeric), one by one or as contiguous runs.
type digitsPre struct {
	individual bool
}

func (d digitsPre) preTokenize(p piece, out []piece) []piece {
	var matches [][2]int
	for i, r := range p.text {
		if unicode.IsNumber(r) {
			matches = append(matches, [2]int{i, i + utf8.RuneLen(r)})
		}
	}
	b := contiguous
	if d.individual {
		b = isolated
	}
	return splitSpans(p, spansOf(p.text, matches, false, nil), b, out)
}
