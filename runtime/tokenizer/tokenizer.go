// Package tokenizer encodes text with a Hugging Face tokenizer.json in pure
// Go, giving the same ids as the Rust tokenizers library.
//
// Input and output sequence lengths, and every per-token metric derived from
// them, are only as right as the token count, so this package reproduces the
// reference pipeline step by step instead of approximating it: added tokens
// are split out of the raw text, each remaining segment is normalized,
// pre-tokenized and merged by the BPE model with the reference's merge
// order. Encodings use add_special_tokens=False semantics (no BOS/EOS from
// the post-processor), and decoding skips special tokens, as GenAI-Perf
// does when it measures lengths.
//
// Supported: BPE models (byte-level as in GPT-2, Llama 3, Qwen and GPT-4o;
// SentencePiece-style with byte fallback as in Llama 2, Mistral and Gemma)
// with the common normalizers, pre-tokenizers and decoders. Anything else
// fails in Load with an error naming the component.
package tokenizer

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// Tokenizer encodes and decodes text. It is safe for concurrent use.
type Tokenizer struct {
	source     string
	model      *bpe
	normalizer normalizer   // nil: none
	pre        preTokenizer // nil: the whole segment is one piece
	decoder    decoder      // nil: tokens joined with spaces
	added      *addedVocab
	vocabSize  int
	counts     *countCache
}

// Source is the file, folder or model id the tokenizer was loaded from.
func (t *Tokenizer) Source() string { return t.source }

// VocabSize is one more than the largest id the tokenizer can produce, so
// that every id is in [0, VocabSize).
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// IsSpecial reports whether id is a special added token (BOS, EOS, chat
// markers): Decode drops those, and prompt generators should not sample
// them.
func (t *Tokenizer) IsSpecial(id int) bool {
	tok, ok := t.added.byID[id]
	return ok && tok.Special
}

// Encode returns the ids of text with add_special_tokens=False: nothing is
// added around the text, but added tokens written in it (such as
// "<|im_start|>") are recognised and mapped to their ids, as the reference
// does. Invalid UTF-8 is first replaced by U+FFFD.
func (t *Tokenizer) Encode(text string) []int {
	text = strings.ToValidUTF8(text, "\uFFFD")
	ids := make([]int, 0, len(text)/3+1)
	for _, seg := range t.added.split(t.added.raw, text, nil) {
		if seg.id >= 0 {
			ids = append(ids, seg.id)
			continue
		}
		s := text[seg.start:seg.end]
		lead := 0
		if seg.start == 0 {
			lead = firstRuneLen(s)
		}
		ids = t.encodeSegment(s, lead, ids)
	}
	return ids
}

// encodeSegment normalizes one stretch of text between raw added tokens,
// splits out normalized added tokens, then pre-tokenizes and merges the rest.
func (t *Tokenizer) encodeSegment(s string, lead int, ids []int) []int {
	if s == "" {
		return ids
	}
	if t.normalizer != nil {
		s, lead = t.normalizer.normalize(s, lead)
	}
	whole := piece{text: s, lead: lead}
	var pieces []piece
	for _, seg := range t.added.split(t.added.norm, s, nil) {
		if seg.id >= 0 {
			ids = append(ids, seg.id)
			continue
		}
		p := whole.sub(seg.start, seg.end)
		if p.text == "" {
			continue
		}
		pieces = pieces[:0]
		if t.pre != nil {
			pieces = t.pre.preTokenize(p, pieces)
		} else {
			pieces = append(pieces, p)
		}
		for _, q := range pieces {
			ids = t.model.tokenize(q.text, ids)
		}
	}
	return ids
}

// Count returns len(Encode(text)), remembering recent prompts: benchmarks
// send the same prompts over and over.
func (t *Tokenizer) Count(text string) int {
	if n, ok := t.counts.get(text); ok {
		return n
	}
	n := len(t.Encode(text))
	t.counts.put(text, n)
	return n
}

// CountAll counts many texts on all cores (GOMAXPROCS workers); result i
// belongs to texts[i].
func (t *Tokenizer) CountAll(texts []string) []int {
	out := make([]int, len(texts))
	workers := min(runtime.GOMAXPROCS(0), len(texts))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				k := int(next.Add(1) - 1)
				if k >= len(texts) {
					return
				}
				out[k] = t.Count(texts[k])
			}
		})
	}
	wg.Wait()
	return out
}

// Decode returns the text of ids with skip_special_tokens=True, as
// GenAI-Perf decodes; unknown ids are ignored, as in the reference.
// Sequences that cut a multi-byte character show U+FFFD where the
// reference does.
func (t *Tokenizer) Decode(ids []int) string {
	tokens := make([]string, 0, len(ids))
	for _, id := range ids {
		tok, ok := t.idToToken(id)
		if !ok || t.added.special[tok] {
			continue
		}
		tokens = append(tokens, tok)
	}
	if t.decoder == nil {
		return strings.Join(tokens, " ")
	}
	return strings.Join(t.decoder.decodeChain(tokens), "")
}

// idToToken looks an id up in the added vocabulary first, then the model.
func (t *Tokenizer) idToToken(id int) (string, bool) {
	if tok, ok := t.added.byID[id]; ok {
		if s, ok := t.added.decoded[id]; ok {
			return s, true
		}
		return tok.Content, true
	}
	return t.model.token(id)
}
