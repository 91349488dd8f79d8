package runtime

import (
	"fmt"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
)

// CountMode is how ISL and OSL are counted. Every output names the mode, so
// numbers from different modes are never compared by accident.
type CountMode string

// The counting modes.
const (
	// ByTokenizer encodes prompt and output text with the model's tokenizer,
	// without special tokens: GenAI-Perf's definition.
	ByTokenizer CountMode = "tokenizer"
	// ByUsage trusts the server's usage object (prompt_tokens includes the
	// chat template, so ISL reads higher than GenAI-Perf's).
	ByUsage CountMode = "usage"
	// ByChunks counts content chunks as output tokens and built-in prompt
	// words as input tokens: exact on servers that stream one token per
	// chunk, an estimate elsewhere.
	ByChunks CountMode = "chunks"
)

// ParseCountMode accepts a mode name; "auto" resolves to tokenizer when one
// is configured and to usage otherwise.
func ParseCountMode(s string, haveTokenizer bool) (CountMode, error) {
	switch m := CountMode(s); m {
	case "", "auto":
		if haveTokenizer {
			return ByTokenizer, nil
		}
		return ByUsage, nil
	case ByUsage, ByChunks:
		return m, nil
	case ByTokenizer:
		if !haveTokenizer {
			return "", fmt.Errorf("token counting mode tokenizer needs a tokenizer")
		}
		return m, nil
	}
	return "", fmt.Errorf("unknown token counting mode %q, want auto, tokenizer, usage or chunks", s)
}

// Tokenizer counts the tokens of a text without special tokens.
type Tokenizer interface {
	Count(text string) int
}

// Counting reports how a run's tokens were counted.
type Counting struct {
	Mode CountMode `json:"mode"`
	// Fallbacks is how many completed requests could not be counted in
	// Mode (no usage reported) and were counted by chunks instead.
	Fallbacks int `json:"fallbacks,omitempty"`
}

// String names the mode for outputs, with any fallback.
func (c Counting) String() string {
	if c.Fallbacks == 0 {
		return string(c.Mode)
	}
	return fmt.Sprintf("%s (%d requests without usage counted by chunks)", c.Mode, c.Fallbacks)
}

// parallelCounter is a tokenizer that counts many texts across cores.
type parallelCounter interface {
	CountAll(texts []string) []int
}

// CountTokens fills InputTokens and OutputTokens of every record.
func CountTokens(recs []metrics.Record, reqs []engine.Request, mode CountMode, tok Tokenizer) Counting {
	c := Counting{Mode: mode}
	if pc, ok := tok.(parallelCounter); ok && mode == ByTokenizer {
		countInParallel(recs, reqs, tok, pc)
		return c
	}
	counter := newTokenCounter(reqs, mode, tok)
	for i := range recs {
		if counter.count(&recs[i]) {
			c.Fallbacks++
		}
	}
	return c
}

// tokenCounter counts one record at a time, as records stream to disk.
type tokenCounter struct {
	reqs   []engine.Request
	mode   CountMode
	tok    Tokenizer
	inputs map[int]int // tokenizer mode: prompt counts per dataset entry
}

func newTokenCounter(reqs []engine.Request, mode CountMode, tok Tokenizer) *tokenCounter {
	return &tokenCounter{reqs: reqs, mode: mode, tok: tok, inputs: map[int]int{}}
}

// count fills rec's ISL and OSL; it reports a completed request that had
// to fall back to chunk counting (usage mode without usage).
func (c *tokenCounter) count(rec *metrics.Record) (fallback bool) {
	req := &c.reqs[rec.Entry]
	switch {
	case c.mode == ByTokenizer && rec.InputText != "":
		rec.InputTokens, rec.OutputTokens = c.tok.Count(rec.InputText), c.tok.Count(rec.Output)
	case c.mode == ByTokenizer:
		if _, ok := c.inputs[rec.Entry]; !ok {
			c.inputs[rec.Entry] = c.tok.Count(req.Text)
		}
		rec.InputTokens, rec.OutputTokens = c.inputs[rec.Entry], c.tok.Count(rec.Output)
	case c.mode == ByUsage && rec.Usage.Reported && rec.Media.Any():
		// The server's prompt_tokens count the pictures' and clips' tokens
		// too; ISL is the text's (GenAI-Perf's), the media are reported
		// apart (Record.Media).
		rec.InputTokens, rec.OutputTokens = promptWords(rec, req), rec.Usage.CompletionTokens
	case c.mode == ByUsage && rec.Usage.Reported:
		rec.InputTokens, rec.OutputTokens = rec.Usage.PromptTokens, rec.Usage.CompletionTokens
	default:
		rec.InputTokens, rec.OutputTokens = promptWords(rec, req), contentChunks(rec)
		return c.mode == ByUsage && rec.Completed()
	}
	return false
}

// promptWords is the stand-in input count: a conversation turn's whole
// history in words, else the entry's nominal length.
func promptWords(rec *metrics.Record, req *engine.Request) int {
	if rec.InputText != "" {
		return dataset.CountWords(rec.InputText)
	}
	return req.Words
}

// contentChunks counts the chunks that carry text: the one empty chunk of
// a zero-token answer (or of an embeddings response) is no output token.
// Records without chunk ends (imported ones) count every chunk.
func contentChunks(rec *metrics.Record) int {
	if len(rec.ChunkEnds) != len(rec.Chunks) {
		return len(rec.Chunks)
	}
	n, prev := 0, int32(0)
	for _, end := range rec.ChunkEnds {
		if end > prev {
			n++
		}
		prev = end
	}
	return n
}

// countInParallel counts GenAI-Perf's way — ISL on the prompt text (once
// per dataset entry), OSL on the whole output text — with the outputs
// spread across cores, since a run can hold millions of them.
func countInParallel(recs []metrics.Record, reqs []engine.Request, tok Tokenizer, pc parallelCounter) {
	inputs := map[int]int{}
	outputs := make([]string, len(recs))
	for i := range recs {
		outputs[i] = recs[i].Output
		if _, ok := inputs[recs[i].Entry]; !ok {
			inputs[recs[i].Entry] = tok.Count(reqs[recs[i].Entry].Text)
		}
	}
	counts := pc.CountAll(outputs)
	for i := range recs {
		recs[i].InputTokens, recs[i].OutputTokens = inputs[recs[i].Entry], counts[i]
		if recs[i].InputText != "" { // a conversation turn: its whole history
			recs[i].InputTokens = tok.Count(recs[i].InputText)
		}
	}
}
