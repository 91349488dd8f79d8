package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// SentencePiece-style tokenizers (Llama 2, Mistral, Gemma) have no
// pre-tokenizer: the whole prompt is one piece, spaces spelled "▁", and the
// reference merges it in one priority queue. When no vocabulary entry has
// "▁" right after another character, no token can straddle the start of a
// "▁"-word, so no merge ever crosses it, and merging word by word gives the
// same ids as merging the whole piece. Word by word, repeated words hit the
// piece cache and a long prompt costs a few small queues instead of one
// huge one. The few entries that break the rule (Gemma 3 has ">▁</") are
// checked wherever they occur in the text.

const metaspace = "▁"

// maxStraddlers bounds how many rule-breaking entries are checked at each
// word start before splitting is not worth it.
const maxStraddlers = 64

// wordBounds finds the "▁"-word starts that no vocabulary entry straddles.
type wordBounds struct {
	straddlers []straddler
}

// straddler is a vocabulary entry containing "▁" after another character,
// at byte offset at.
type straddler struct {
	token string
	at    int
}

// newWordBounds returns nil when splitting is not possible or not useful.
func newWordBounds(vocab map[string]int) *wordBounds {
	if _, ok := vocab[metaspace]; !ok {
		return nil
	}
	w := &wordBounds{}
	for tok := range vocab {
		for i := 1; i < len(tok); i++ {
			if strings.HasPrefix(tok[i:], metaspace) && !strings.HasSuffix(tok[:i], metaspace) && utf8.RuneStart(tok[i]) {
				w.straddlers = append(w.straddlers, straddler{tok, i})
				if len(w.straddlers) > maxStraddlers {
					return nil
				}
			}
		}
	}
	return w
}

// each calls merge on every word of piece in order.
func (w *wordBounds) each(piece string, out []int, merge func(string, []int) []int) []int {
	start := 0
	for i := 1; i < len(piece); i++ {
		if piece[i] != metaspace[0] || !strings.HasPrefix(piece[i:], metaspace) ||
			strings.HasSuffix(piece[:i], metaspace) || w.straddled(piece, i) {
			continue
		}
		out = merge(piece[start:i], out)
		start = i
	}
	return merge(piece[start:], out)
}

// straddled reports whether a rule-breaking entry occurs across offset i.
func (w *wordBounds) straddled(piece string, i int) bool {
	for _, s := range w.straddlers {
		if i >= s.at && strings.HasPrefix(piece[i-s.at:], s.token) {
			return true
		}
	}
	return false
}
