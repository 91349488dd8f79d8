package dataset

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Synthetic generates prompts of sampled lengths, GenAI-Perf style: with
// a Tokenizer, prompts of exactly the sampled number of tokens, cut from
// public-domain prose; without one, that many built-in English words.
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
	// Tokenizer, when set, makes every prompt and shared prefix
	// token-exact under it.
	Tokenizer Tokenizer
}

// Validate reports every problem with the description.
func (s Synthetic) Validate() error {
	var errs []error
	if err := ValidateDist(s.Input); err != nil {
		errs = append(errs, fmt.Errorf("input_tokens: %w", err))
	} else if s.Input.Mean() <= 0 && s.PrefixTokens <= 0 {
		errs = append(errs, fmt.Errorf("input_tokens: got %s, want a mean > 0 (every prompt would be empty)", s.Input))
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
	if s.Tokenizer != nil {
		return s.buildExact(rng, n)
	}
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
	out := "None" // as the scenario writes it
	if s.Output != nil {
		out = s.Output.String()
	}
	desc := fmt.Sprintf("synthetic(input_tokens=%s, output_tokens=%s", s.Input, out)
	if s.PrefixTokens > 0 {
		desc += fmt.Sprintf(", prefix_tokens=%d, prefixes=%d", s.PrefixTokens, max(s.Prefixes, 1))
	}
	return desc + ")"
}

// buildExact draws every length and prompt plan in order from rng, then
// builds and verifies the prompts on all cores: the result depends on the
// seed only. A prompt with a shared prefix is the prefix's exact text
// followed by its own tokens, PrefixTokens + sampled length in all.
func (s Synthetic) buildExact(rng *rand.Rand, n int) ([]Entry, error) {
	c, err := corpusFor(s.Tokenizer)
	if err != nil {
		return nil, fmt.Errorf("synthetic: %w", err)
	}
	var prefixPlans [][]span
	if s.PrefixTokens > 0 {
		prefixPlans = make([][]span, max(s.Prefixes, 1))
		for i := range prefixPlans {
			prefixPlans[i] = c.plan(rng, s.PrefixTokens, nil)
		}
	}
	entries := make([]Entry, n)
	plans := make([][]span, n)
	prefixOf := make([]int, n)
	for i := range entries {
		k := max(0, int(s.Input.Sample(rng)))
		e := Entry{Words: k}
		if len(prefixPlans) > 0 {
			prefixOf[i] = rng.IntN(len(prefixPlans))
			e.Words += s.PrefixTokens
		}
		if s.Output != nil {
			e.MaxTokens = max(1, int(s.Output.Sample(rng)))
			if s.Deterministic {
				e.MinTokens = e.MaxTokens
			}
		}
		plans[i] = c.plan(rng, k, nil)
		entries[i] = e
	}
	prefixes := make([]string, len(prefixPlans))
	err = parallel(len(prefixes), func(i int) (err error) {
		prefixes[i], err = c.exact("", prefixPlans[i], s.PrefixTokens)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("synthetic: prefix: %w", err)
	}
	err = parallel(n, func(i int) (err error) {
		head := ""
		if len(prefixes) > 0 {
			head = prefixes[prefixOf[i]]
		}
		entries[i].Text, err = c.exact(head, plans[i], entries[i].Words)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("synthetic: %w", err)
	}
	return entries, nil
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
