package tokenizer

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unicode/utf8"
)

// bpe is the Hugging Face BPE model. It reproduces the Rust algorithm
// (models/bpe/word.rs merge_all) rather than tiktoken's rank loop: merges are
// looked up by pair of ids, the lowest rank wins and ties go to the leftmost
// pair. That makes it exact for every BPE tokenizer.json, not only for the
// tiktoken-derived ones whose ids happen to equal merge ranks, and a priority
// queue keeps a piece at O(n log n) however long it is.
type bpe struct {
	vocab        map[string]int
	vocabR       []string // id -> token; ids are dense in real files
	hasID        []bool
	merges       map[uint64]uint64 // pair (left<<32 | right) -> rank<<32 | new id
	unkID        int               // -1 when the model has no unk token
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
	prefix       string      // continuing_subword_prefix
	suffix       string      // end_of_word_suffix
	byteIDs      [256]int    // ids of "<0xNN>" tokens, -1 when missing
	cache        *pieceCache // ids of recently seen pieces
	words        *wordBounds // nil: pieces are merged whole
}

// bpeConfig carries the parsed "model" object of tokenizer.json.
type bpeConfig struct {
	vocab        map[string]int
	merges       [][2]string
	unkToken     string
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
	prefix       string
	suffix       string
}

// newBPE builds the merge table the way BpeBuilder::build does; a later
// duplicate of a pair overrides the earlier one, as in the Rust HashMap.
func newBPE(c bpeConfig) (*bpe, error) {
	m := &bpe{
		vocab:  c.vocab,
		merges: make(map[uint64]uint64, len(c.merges)), unkID: -1,
		fuseUnk: c.fuseUnk, byteFallback: c.byteFallback, ignoreMerges: c.ignoreMerges,
		prefix: c.prefix, suffix: c.suffix, cache: newPieceCache(),
	}
	if err := m.indexIDs(); err != nil {
		return nil, err
	}
	if c.unkToken != "" {
		id, ok := c.vocab[c.unkToken]
		if !ok {
			return nil, fmt.Errorf("model BPE: unk_token %q is not in the vocabulary", c.unkToken)
		}
		m.unkID = id
	}
	for b := range m.byteIDs {
		id, ok := c.vocab[fmt.Sprintf("<0x%02X>", b)]
		if !ok {
			id = -1
		}
		m.byteIDs[b] = id
	}
	ids, err := mergeIDs(c)
	if err != nil {
		return nil, err
	}
	for rank, t := range ids {
		m.merges[pairKey(int(t[0]), int(t[1]))] = uint64(rank)<<32 | uint64(t[2])
	}
	if c.prefix == "" && c.suffix == "" { // both depend on a character's place in the piece
		m.words = newWordBounds(c.vocab)
	}
	return m, nil
}

// mergeIDs resolves every merge to (left, right, result) ids. The lookups
// dominate loading, so they run on all cores; the caller inserts in rank
// order so that a duplicated pair keeps its last rank, as in Rust.
func mergeIDs(c bpeConfig) ([][3]uint32, error) {
	ids := make([][3]uint32, len(c.merges))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(c.merges)/10000))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var buf []byte
			for rank := w; rank < len(c.merges); rank += workers {
				p := c.merges[rank]
				a, okA := c.vocab[p[0]]
				b, okB := c.vocab[p[1]]
				if !okA || !okB {
					errs[w] = fmt.Errorf("model BPE: merge %d (%q %q) uses a token missing from the vocabulary", rank, p[0], p[1])
					return
				}
				buf = append(append(buf[:0], p[0]...), p[1][min(len(c.prefix), len(p[1])):]...)
				n, ok := c.vocab[string(buf)]
				if !ok {
					errs[w] = fmt.Errorf("model BPE: merge %d produces %q, which is not in the vocabulary", rank, buf)
					return
				}
				ids[rank] = [3]uint32{uint32(a), uint32(b), uint32(n)}
			}
		})
	}
	wg.Wait()
	return ids, errors.Join(errs...)
}

func pairKey(a, b int) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// tokenize appends the ids of one pre-tokenized piece to out.
func (m *bpe) tokenize(piece string, out []int) []int {
	if piece == "" {
		return out
	}
	if m.ignoreMerges {
		if id, ok := m.vocab[piece]; ok {
			return append(out, id)
		}
	}
	if m.words != nil {
		return m.words.each(piece, out, m.merge)
	}
	return m.merge(piece, out)
}

// merge runs the BPE merges over one piece (or one word of it).
func (m *bpe) merge(piece string, out []int) []int {
	if ids, ok := m.cache.get(piece); ok {
		return append(out, ids...)
	}
	w := m.initialSymbols(piece)
	if len(w.syms) == 0 {
		return out
	}
	w.mergeAll(m.merges)
	start := len(out)
	for i := 0; i >= 0; i = int(w.syms[i].next) {
		out = append(out, int(w.syms[i].id))
	}
	m.cache.put(piece, out[start:])
	return out
}

// initialSymbols splits a piece into one symbol per character, falling back
// to "<0xNN>" byte tokens or the (optionally fused) unk token, exactly as
// BPE::merge_word does.
func (m *bpe) initialSymbols(w string) *word {
	wd := &word{syms: make([]symbol, 0, len(w))}
	unk, unkPending := 0, false
	for i, r := range w {
		size := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, size = utf8.DecodeRuneInString(w[i:])
		}
		id, ok := m.charID(w[i:i+size], i == 0, i+size == len(w))
		if ok {
			if unkPending {
				wd.add(unk)
				unkPending = false
			}
			wd.add(id)
			continue
		}
		if m.byteFallback && m.addBytes(wd, w[i:i+size]) {
			continue
		}
		if m.unkID >= 0 {
			if unkPending && !m.fuseUnk {
				wd.add(unk)
			}
			unk, unkPending = m.unkID, true
		}
	}
	if unkPending {
		wd.add(unk)
	}
	return wd
}

// charID looks up one character, decorated with the subword prefix/suffix
// when the model declares them.
func (m *bpe) charID(s string, first, last bool) (int, bool) {
	if m.prefix == "" && m.suffix == "" {
		id, ok := m.vocab[s]
		return id, ok
	}
	if !first {
		s = m.prefix + s
	}
	if last {
		s += m.suffix
	}
	id, ok := m.vocab[s]
	return id, ok
}

// addBytes emits the byte-fallback tokens of s, or nothing and false when
// one of them is missing from the vocabulary.
func (m *bpe) addBytes(wd *word, s string) bool {
	for i := 0; i < len(s); i++ {
		if m.byteIDs[s[i]] < 0 {
			return false
		}
	}
	for i := 0; i < len(s); i++ {
		wd.add(m.byteIDs[s[i]])
	}
	return true
}

// token returns the vocabulary string of id.
func (m *bpe) token(id int) (string, bool) {
	if id < 0 || id >= len(m.vocabR) || !m.hasID[id] {
		return "", false
	}
	return m.vocabR[id], true
}

// indexIDs builds the id -> token table, refusing absurdly sparse ids that
// would make it huge.
func (m *bpe) indexIDs() error {
	maxID := -1
	for _, id := range m.vocab {
		maxID = max(maxID, id)
	}
	if maxID > 16*len(m.vocab)+1024 {
		return fmt.Errorf("model BPE: vocabulary ids are too sparse (largest %d for %d entries)", maxID, len(m.vocab))
	}
	m.vocabR, m.hasID = make([]string, maxID+1), make([]bool, maxID+1)
	for tok, id := range m.vocab {
		m.vocabR[id], m.hasID[id] = tok, true
	}
	return nil
}
