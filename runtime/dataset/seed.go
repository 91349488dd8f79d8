package dataset

import "slices"

// Reseed returns src with every seed it draws by replaced by next(seed):
// the synthetic prompts and lengths, a mix's picks and each of its
// components, the output lengths given to a file, a trace's block texts,
// synthetic conversations, a rankings dataset's draws and its sources.
// A runner gives each sweep point its own prompts this way (so no point
// is served from the prefix cache an earlier point filled) while keeping
// what the scenario's seeds say about each other: two components with
// the same seed still draw alike. File datasets without a seed (JSONL,
// ShareGPT) send their prompts in file order whatever the seed, and come
// back unchanged.
func Reseed(src Source, next func(uint64) uint64) Source {
	switch s := src.(type) {
	case Synthetic:
		s.Seed = next(s.Seed)
		return s
	case Trace:
		s.Seed = next(s.Seed)
		return s
	case Conversations:
		s.Seed = next(s.Seed)
		return s
	case Rankings:
		s.Seed = next(s.Seed)
		s.Queries, s.Passages = Reseed(s.Queries, next), Reseed(s.Passages, next)
		return s
	case Media:
		s.Seed = next(s.Seed)
		s.Text = Reseed(s.Text, next)
		return s
	case DefaultOutputs:
		s.Seed = next(s.Seed)
		s.Source = Reseed(s.Source, next)
		return s
	case Mix:
		s.Seed = next(s.Seed)
		s.Components = slices.Clone(s.Components)
		for i, c := range s.Components {
			s.Components[i] = Reseed(c, next)
		}
		return s
	}
	return src
}
