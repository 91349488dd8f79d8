package main

import (
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/runtime/dataset"
)

// rankings is the source of --endpoint-type rankings, as GenAI-Perf
// builds it: --input-file DIR holding queries.jsonl and passages.jsonl, or
// synthetic queries and passages (no --input-file, or
// synthetic:queries,passages) of the synthetic prompt length; each request
// pairs a query with --batch-size-text passages.
func (c *profileFlags) rankings() (dataset.Source, error) {
	r := dataset.Rankings{BatchSize: c.BatchSizeText, Entries: c.NumDatasetEntries, Seed: uint64(c.RandomSeed)}
	switch c.InputFile {
	case "", "synthetic:queries,passages":
		q := c.synthetic()
		q.Output, q.Deterministic = nil, false
		p := q
		p.Seed ^= 0x70617373 // passages differ from the queries
		r.Queries, r.Passages = q, p
		return r, nil
	}
	st, err := os.Stat(c.InputFile)
	if err != nil || !st.IsDir() {
		return nil, invalid("--input-file %s with --endpoint-type rankings: want a folder holding queries.jsonl and passages.jsonl, or synthetic:queries,passages", c.InputFile)
	}
	parts := [2]dataset.Source{}
	for i, name := range []string{"queries", "passages"} {
		f := dataset.JSONL{Path: filepath.Join(c.InputFile, name+".jsonl")}
		if _, err := f.Check(); err != nil {
			return nil, invalid("--input-file: rankings %s: %w", name, err)
		}
		parts[i] = f
	}
	r.Queries, r.Passages = parts[0], parts[1]
	return r, nil
}
