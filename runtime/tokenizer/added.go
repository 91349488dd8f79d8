package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// addedToken is one entry of tokenizer.json's "added_tokens".
type addedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// addedVocab finds added tokens inside the text before anything else
// happens to it, as the Rust AddedVocabulary does: tokens with
// normalized=false are matched in the raw input, the others in each
// normalized segment. Chat templates put "<|im_start|>" and friends in
// prompts literally, so this decides many ids.
type addedVocab struct {
	byID    map[int]addedToken
	special map[string]bool
	decoded map[int]string // normalized spelling shown by Decode, when it differs
	raw     *trie          // normalized=false tokens
	norm    *trie          // normalized=true tokens, in normalized form
}

// segment is a span of text that is either an added token (id >= 0) or
// text still to be encoded (id < 0).
type segment struct {
	start, end int
	id         int
}

// split cuts s into segments with the leftmost-longest matches of t,
// honouring single_word, lstrip and rstrip like find_matches in Rust.
func (a *addedVocab) split(t *trie, s string, dst []segment) []segment {
	if t == nil || s == "" {
		return append(dst, segment{0, len(s), -1})
	}
	startOffset := 0
	for pos := 0; pos < len(s); {
		start, stop, id := t.next(s, pos)
		if id < 0 {
			break
		}
		pos = stop
		tok := a.byID[id]
		if tok.SingleWord && !isSingleWord(s, start, stop) {
			continue
		}
		if tok.LStrip {
			start = max(trailingSpaceStart(s[:start]), startOffset)
		}
		if tok.RStrip {
			stop += leadingSpaceLen(s[stop:])
		}
		if startOffset < start {
			dst = append(dst, segment{startOffset, start, -1})
		}
		dst = append(dst, segment{start, stop, id})
		startOffset = stop
	}
	if startOffset != len(s) {
		dst = append(dst, segment{startOffset, len(s), -1})
	}
	return dst
}

// isSingleWord reports whether s[start:stop] is not glued to word
// characters on either side (Rust regex \w, Unicode).
func isSingleWord(s string, start, stop int) bool {
	if start > 0 {
		if r, _ := utf8.DecodeLastRuneInString(s[:start]); isWordRune(r) {
			return false
		}
	}
	if stop < len(s) {
		if r, _ := utf8.DecodeRuneInString(s[stop:]); isWordRune(r) {
			return false
		}
	}
	return true
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_Alphabetic, r) ||
		unicode.Is(unicode.M, r) || unicode.Is(unicode.Nd, r) || unicode.Is(unicode.Pc, r) ||
		r == 0x200C || r == 0x200D
}

// trailingSpaceStart is where the whitespace at the end of s begins.
func trailingSpaceStart(s string) int {
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsSpace(r) {
			break
		}
		i -= size
	}
	return i
}

// leadingSpaceLen is the byte length of the whitespace that starts s.
func leadingSpaceLen(s string) int {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}

// trie is a byte trie over the added tokens' spellings; next scans for the
// leftmost, then longest, match (Aho-Corasick's LeftmostLongest).
type trie struct {
	edges    map[uint64]int32 // node<<8 | byte -> child
	terminal []int            // node -> token id, -1 if no token ends here
	first    [256]bool        // bytes that start some token
}

func newTrie() *trie {
	return &trie{edges: make(map[uint64]int32), terminal: []int{-1}}
}

func (t *trie) add(s string, id int) {
	if s == "" {
		return
	}
	node := int32(0)
	for i := 0; i < len(s); i++ {
		k := uint64(node)<<8 | uint64(s[i])
		child, ok := t.edges[k]
		if !ok {
			child = int32(len(t.terminal))
			t.terminal = append(t.terminal, -1)
			t.edges[k] = child
		}
		node = child
	}
	t.terminal[node] = id
	t.first[s[0]] = true
}

// next returns the first match at or after pos, or id -1.
func (t *trie) next(s string, pos int) (start, end, id int) {
	for ; pos < len(s); pos++ {
		if !t.first[s[pos]] {
			continue
		}
		node, best, bestEnd := int32(0), -1, 0
		for i := pos; i < len(s); i++ {
			child, ok := t.edges[uint64(node)<<8|uint64(s[i])]
			if !ok {
				break
			}
			node = child
			if t.terminal[node] >= 0 {
				best, bestEnd = t.terminal[node], i+1
			}
		}
		if best >= 0 {
			return pos, bestEnd, best
		}
	}
	return 0, 0, -1
}
