package tokenizer

// piece is a span of normalized text on its way to the model. lead counts
// its leading bytes that come from the first character of the original
// input (0 for any later piece): Metaspace's prepend_scheme "first" asks
// whether a piece starts at original offset 0, which the Rust library
// answers from its alignment tracking.
type piece struct {
	text string
	lead int
}

// sub returns the piece text[start:end], keeping the part of lead it covers.
func (p piece) sub(start, end int) piece {
	return piece{text: p.text[start:end], lead: max(0, min(p.lead-start, end-start))}
}

// behavior is a SplitDelimiterBehavior: what happens to the matched
// delimiters when a piece is split.
type behavior int

const (
	removed behavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

var behaviors = map[string]behavior{
	"Removed": removed, "Isolated": isolated, "MergedWithPrevious": mergedWithPrevious,
	"MergedWithNext": mergedWithNext, "Contiguous": contiguous,
}

// span is a matched or unmatched stretch of a piece, in byte offsets.
type span struct {
	start, end int
	match      bool
}

// spansOf turns matches into the covering list of spans that the Rust
// Pattern::find_matches returns (an empty input is one empty non-match).
func spansOf(s string, matches [][2]int, invert bool, dst []span) []span {
	if s == "" {
		return append(dst, span{0, 0, invert})
	}
	prev := 0
	for _, m := range matches {
		if prev != m[0] {
			dst = append(dst, span{prev, m[0], invert})
		}
		dst = append(dst, span{m[0], m[1], !invert})
		prev = m[1]
	}
	if prev != len(s) {
		dst = append(dst, span{prev, len(s), invert})
	}
	return dst
}

// splitSpans applies a behavior to spans and appends the resulting
// non-empty pieces of p to out, following NormalizedString::split.
func splitSpans(p piece, spans []span, b behavior, out []piece) []piece {
	var keep []span
	switch b {
	case isolated:
		keep = spans
		for i := range keep {
			keep[i].match = false
		}
	case removed:
		keep = spans
	case contiguous, mergedWithPrevious:
		keep = mergeForward(spans, b == contiguous)
	case mergedWithNext:
		keep = mergeBackward(spans)
	}
	for _, s := range keep {
		if s.match || s.start == s.end {
			continue
		}
		out = append(out, p.sub(s.start, s.end))
	}
	return out
}

// mergeForward glues a match onto the span before it (MergedWithPrevious)
// or glues runs of equal kind together (Contiguous). Results are kept.
func mergeForward(spans []span, sameKind bool) []span {
	acc := spans[:0:0]
	prevMatch := false
	for _, s := range spans {
		join := s.match && !prevMatch
		if sameKind {
			join = s.match == prevMatch
		}
		if join && len(acc) > 0 {
			acc[len(acc)-1].end = s.end
		} else {
			acc = append(acc, span{s.start, s.end, false})
		}
		prevMatch = s.match
	}
	return acc
}

// mergeBackward glues a match onto the span after it (MergedWithNext).
func mergeBackward(spans []span) []span {
	acc := make([]span, 0, len(spans))
	prevMatch := false
	for i := len(spans) - 1; i >= 0; i-- {
		s := spans[i]
		if s.match && !prevMatch && len(acc) > 0 {
			acc[len(acc)-1].start = s.start
		} else {
			acc = append(acc, span{s.start, s.end, false})
		}
		prevMatch = s.match
	}
	for i, j := 0, len(acc)-1; i < j; i, j = i+1, j-1 {
		acc[i], acc[j] = acc[j], acc[i]
	}
	return acc
}
