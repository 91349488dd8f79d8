// Package dataset builds the prompts a run sends: synthetic prompts of
// sampled lengths and weighted mixtures of datasets. Synthetic prompts are
// made of built-in English words for now; the token-exact generator
// arrives with the tokenizer.
package dataset

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Entry is one prompt with the output length it asks for.
type Entry struct {
	Text string
	// Words is the prompt's length in built-in words: the requested input
	// length, since each word is one token for common BPE vocabularies.
	Words int
	// MaxTokens is the output length to request (0: let the server decide).
	MaxTokens int
	// MinTokens forces the output length on servers that honour it.
	MinTokens int
	// Component names the mix component the entry came from ("" outside a mix).
	Component string
	// At is when a replay sends the entry, from the trace's start.
	At time.Duration
}

// Source is anything that yields dataset entries.
type Source interface {
	// Build draws n entries (n <= 0: the source's natural size).
	Build(n int) ([]Entry, error)
	// String describes the source for plans and reports.
	String() string
}

// Synthetic generates prompts of sampled lengths, GenAI-Perf style.
type Synthetic struct {
	// Input is the prompt length distribution.
	Input Dist
	// Output is the requested output length distribution; nil sends no
	// max_tokens and lets the server decide.
	Output Dist
	// Deterministic also sets min_tokens to the sampled output length.
	Deterministic bool
	// PrefixTokens > 0 prepends one of Prefixes shared prefixes of that
	// length to every prompt, for prefix-cache experiments.
	PrefixTokens, Prefixes int
	// Entries is the number of distinct prompts (GenAI-Perf's
	// --num-dataset-entries); runs cycle through them.
	Entries int
	Seed    uint64
}

// Validate reports every problem with the description.
func (s Synthetic) Validate() error {
	var errs []error
	if err := ValidateDist(s.Input); err != nil {
		errs = append(errs, fmt.Errorf("input_tokens: %w", err))
	}
	if s.Output != nil {
		if err := ValidateDist(s.Output); err != nil {
			errs = append(errs, fmt.Errorf("output_tokens: %w", err))
		}
	}
	if s.PrefixTokens < 0 || s.Prefixes < 0 {
		errs = append(errs, errors.New("prefix_tokens and prefixes must be >= 0"))
	}
	return errors.Join(errs...)
}

// Build draws the entries. Lengths follow GenAI-Perf: input
// max(0, int(sample)), output max(1, int(sample)).
func (s Synthetic) Build(n int) ([]Entry, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if n <= 0 {
		n = max(s.Entries, 1)
	}
	rng := rand.New(rand.NewPCG(s.Seed, s.Seed^0x5851f42d4c957f2d))
	var prefixes []string
	if s.PrefixTokens > 0 {
		prefixes = make([]string, max(s.Prefixes, 1))
		for i := range prefixes {
			prefixes[i] = words(rng, s.PrefixTokens)
		}
	}
	entries := make([]Entry, n)
	for i := range entries {
		entries[i] = s.entry(rng, prefixes)
	}
	return entries, nil
}

func (s Synthetic) entry(rng *rand.Rand, prefixes []string) Entry {
	k := max(0, int(s.Input.Sample(rng)))
	e := Entry{Text: words(rng, k), Words: k}
	if len(prefixes) > 0 {
		e.Text = prefixes[rng.IntN(len(prefixes))] + " " + e.Text
		e.Words += s.PrefixTokens
	}
	if s.Output != nil {
		e.MaxTokens = max(1, int(s.Output.Sample(rng)))
		if s.Deterministic {
			e.MinTokens = e.MaxTokens
		}
	}
	return e
}

func (s Synthetic) String() string {
	out := "none"
	if s.Output != nil {
		out = s.Output.String()
	}
	desc := fmt.Sprintf("synthetic(input_tokens=%s, output_tokens=%s", s.Input, out)
	if s.PrefixTokens > 0 {
		desc += fmt.Sprintf(", prefix_tokens=%d, prefixes=%d", s.PrefixTokens, max(s.Prefixes, 1))
	}
	return desc + ")"
}

// words returns n words drawn from the built-in list, space separated.
func words(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.Grow(n * 6)
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(wordList[rng.IntN(len(wordList))])
	}
	return b.String()
}

// CountWords is the stand-in token count of a text: its whitespace words.
func CountWords(s string) int { return len(strings.Fields(s)) }
