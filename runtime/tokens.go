package runtime

import (
	"fmt"

	"github.com/llmbench/llmbench/metrics"
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
	Mode CountMode
	// Fallbacks is how many completed requests could not be counted in
	// Mode (no usage reported) and were counted by chunks instead.
	Fallbacks int
}

// String names the mode for outputs, with any fallback.
func (c Counting) String() string {
	if c.Fallbacks == 0 {
		return string(c.Mode)
	}
	return fmt.Sprintf("%s (%d requests without usage counted by chunks)", c.Mode, c.Fallbacks)
}

// CountTokens fills InputTokens and OutputTokens of every record.
func CountTokens(recs []metrics.Record, reqs []Request, mode CountMode, tok Tokenizer) Counting {
	c := Counting{Mode: mode}
	var inputs map[int]int // prompt counts per dataset entry, computed once
	for i := range recs {
		rec := &recs[i]
		req := &reqs[rec.Entry]
		switch {
		case mode == ByTokenizer:
			if inputs == nil {
				inputs = map[int]int{}
			}
			if _, ok := inputs[rec.Entry]; !ok {
				inputs[rec.Entry] = tok.Count(req.Text)
			}
			rec.InputTokens, rec.OutputTokens = inputs[rec.Entry], tok.Count(rec.Output)
		case mode == ByUsage && rec.Usage.Reported:
			rec.InputTokens, rec.OutputTokens = rec.Usage.PromptTokens, rec.Usage.CompletionTokens
		default:
			if mode == ByUsage && rec.Completed() {
				c.Fallbacks++
			}
			rec.InputTokens, rec.OutputTokens = req.Words, len(rec.Chunks)
		}
	}
	return c
}
