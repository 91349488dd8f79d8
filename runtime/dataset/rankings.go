package dataset

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// Rankings pairs queries with passages for a reranking endpoint
// (GenAI-Perf's rankings: an --input-file folder of queries.jsonl and
// passages.jsonl, or synthetic:queries,passages). Each entry is one query
// drawn from Queries with BatchSize passages drawn from Passages
// (GenAI-Perf's --batch-size-text), without repeating a passage within an
// entry while the pool has enough.
type Rankings struct {
	Queries, Passages Source
	BatchSize         int
	// Entries is the number of entries drawn (default 100).
	Entries int
	Seed    uint64
}

// Validate reports every problem with the description.
func (r Rankings) Validate() error {
	var errs []error
	if r.Queries == nil || r.Passages == nil {
		errs = append(errs, errors.New("rankings: needs queries and passages"))
	}
	if r.BatchSize < 1 {
		errs = append(errs, fmt.Errorf("batch_size: got %d, want >= 1", r.BatchSize))
	}
	return errors.Join(errs...)
}

// Build draws n entries (default Entries, else 100). An entry's Text is
// its query, Passages its passages, Words every text's words.
func (r Rankings) Build(n int) ([]Entry, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if n <= 0 {
		n = max(r.Entries, 0)
	}
	if n <= 0 {
		n = 100
	}
	queries, err := r.Queries.Build(0)
	if err != nil {
		return nil, fmt.Errorf("rankings queries: %w", err)
	}
	passages, err := r.Passages.Build(0)
	if err != nil {
		return nil, fmt.Errorf("rankings passages: %w", err)
	}
	if len(queries) == 0 || len(passages) == 0 {
		return nil, errors.New("rankings: queries and passages must each have at least one entry")
	}
	rng := rand.New(rand.NewPCG(r.Seed, r.Seed^0x6a09e667f3bcc909))
	entries := make([]Entry, n)
	for i := range entries {
		q := queries[rng.IntN(len(queries))]
		e := Entry{Text: q.Text, Words: CountWords(q.Text), Passages: make([]string, r.BatchSize)}
		for k, j := range r.pick(rng, len(passages)) {
			e.Passages[k] = passages[j].Text
			e.Words += CountWords(passages[j].Text)
		}
		entries[i] = e
	}
	return entries, nil
}

// pick draws BatchSize passage indices, distinct while the pool allows.
func (r Rankings) pick(rng *rand.Rand, pool int) []int {
	if r.BatchSize <= pool {
		return rng.Perm(pool)[:r.BatchSize]
	}
	out := make([]int, r.BatchSize)
	for i := range out {
		out[i] = rng.IntN(pool)
	}
	return out
}

func (r Rankings) String() string {
	return fmt.Sprintf("rankings(queries=%s, passages=%s, batch_size=%d)", r.Queries, r.Passages, r.BatchSize)
}
