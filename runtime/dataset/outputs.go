package dataset

import (
	"fmt"
	"math/rand/v2"
)

// DefaultOutputs gives the entries of Source that ask for no output length
// one drawn from Output, seeded by Seed, in entry order: GenAI-Perf's
// --output-tokens-mean applied to an input file whose lines do not set
// their own output_length. Deterministic also asks for min_tokens equal to
// max_tokens.
type DefaultOutputs struct {
	Source        Source
	Output        Dist
	Seed          uint64
	Deterministic bool
}

// Build is the source's entries with the missing output lengths drawn.
func (d DefaultOutputs) Build(n int) ([]Entry, error) {
	entries, err := d.Source.Build(n)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(d.Seed, 1))
	for i := range entries {
		if entries[i].MaxTokens == 0 {
			entries[i].MaxTokens = max(1, int(d.Output.Sample(rng)))
			if d.Deterministic {
				entries[i].MinTokens = entries[i].MaxTokens
			}
		}
	}
	return entries, nil
}

func (d DefaultOutputs) String() string {
	return fmt.Sprintf("%s, output_tokens=%s where unset", d.Source, d.Output)
}
