package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/plan"
)

// TestDatasetFootprints: every generated dataset's prompts are counted,
// by hand: 56 bytes a token (bytesPerPromptToken), 16 more a passage in
// a rankings entry, and the parameter that makes a dataset too large is
// the largest factor of its largest term.
func TestDatasetFootprints(t *testing.T) {
	fixed := func(n float64) dataset.Dist { return dataset.Fixed{N: n} }
	syn := func(tokens float64) dataset.Synthetic { return dataset.Synthetic{Input: fixed(tokens), Entries: 100} }
	for _, c := range []struct {
		name  string
		src   dataset.Source
		bytes float64
		field string
	}{
		{"synthetic", dataset.Synthetic{Input: fixed(550), Entries: 1e9}, 1e9 * 550 * 56, "entries"},
		{"synthetic prefixes", dataset.Synthetic{Input: fixed(10), PrefixTokens: 1e9, Prefixes: 4, Entries: 100},
			100*(10+1e9)*56 + 4*1e9*56, "prefix_tokens"},
		// 10 sessions × 3 turns × 100 tokens, and 10 own system prompts of 50 tokens.
		{"conversations", dataset.Conversations{Count: 10, Turns: fixed(3), Input: fixed(100), SystemTokens: 50},
			10*3*100*56 + 10*50*56, "input_tokens"},
		{"conversations sessions", dataset.Conversations{Count: 1e12, Turns: fixed(1), Input: fixed(550)}, 1e12 * 550 * 56, "sessions"},
		{"conversations turns", dataset.Conversations{Turns: fixed(1e9), Input: fixed(550)}, 100 * 1e9 * 550 * 56, "turns"},
		{"conversations system prompt", dataset.Conversations{Count: 8, Turns: fixed(2), Input: fixed(10), SystemTokens: 1e9, SharedSystem: true},
			8*2*10*56 + 1e9*56, "system_prompt_tokens"},
		// 100 entries, each a 550-token query and 1e9 passages of 550 tokens, plus both pools of 100.
		{"rankings", dataset.Rankings{Queries: syn(550), Passages: syn(550), BatchSize: 1e9},
			100*(550*56+1e9*(550*56+16)) + 2*100*550*56, "batch_size"},
		{"rankings from files", dataset.Rankings{Queries: dataset.JSONL{Path: "q"}, Passages: dataset.JSONL{Path: "p"}, BatchSize: 10, Entries: 5},
			5 * 10 * (56 + 16), "batch_size"},
		{"mix", dataset.Mix{Components: []dataset.Source{syn(10), dataset.Conversations{Count: 1e9, Turns: fixed(2), Input: fixed(10)}}},
			100*10*56 + 1e9*2*10*56, "sessions"},
	} {
		fp := footprintOf(c.src)
		field, _ := fp.culprit()
		if fp.bytes != c.bytes || field != c.field {
			t.Errorf("%s: %g bytes, culprit %s; want %g, %s", c.name, fp.bytes, field, c.bytes, c.field)
		}
	}
}

// TestHugeDatasetsAreRefusedByName: the sizes that crashed llmbench with
// a fatal out-of-memory are refused before a prompt is drawn, naming the
// parameter and the memory they would take.
func TestHugeDatasetsAreRefusedByName(t *testing.T) {
	fixed := func(n float64) dataset.Dist { return dataset.Fixed{N: n} }
	for _, c := range []struct {
		src  dataset.Source
		want string
	}{
		// 1e12 × 550 × 56 B = 3.08e16 B = 27.4 PiB.
		{dataset.Conversations{Count: 1e12, Turns: fixed(1), Input: fixed(550)}, "sessions=1000000000000: 1000000000000 sessions of about 1 turns of about 550 tokens need about 27.4 PiB"},
		{dataset.Conversations{Turns: fixed(1e9), Input: fixed(550)}, "turns=1000000000: 100 sessions of about 1000000000 turns"},
		{dataset.Conversations{Turns: fixed(2), Input: fixed(10), SystemTokens: 1e12, SharedSystem: true}, "system_prompt_tokens=1000000000000: 1 system prompts of 1000000000000 tokens"},
		{dataset.Rankings{Queries: dataset.Synthetic{Input: fixed(550)}, Passages: dataset.Synthetic{Input: fixed(550)}, BatchSize: 1e9}, "batch_size=1000000000: 100 queries with 1000000000 passages"},
		// The parameter's own value, not the prompt length it is part of.
		{dataset.Synthetic{Input: fixed(550), PrefixTokens: 1e9, Prefixes: 2, Entries: 100}, "prefix_tokens=1000000000: 100 prompts of about 1000000550 tokens"},
	} {
		err := CheckDatasetMemory(c.src, plan.PointSpec{})
		var me *DatasetMemoryError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.src, err, c.want)
		}
	}
	if err := CheckDatasetMemory(dataset.Conversations{Count: 16, Turns: fixed(3), Input: fixed(100)}, plan.PointSpec{}); err != nil {
		t.Errorf("16 sessions of 3 turns: %v", err)
	}
}

// TestCheckSchedule: an open loop may take up to a day to send its
// requests; 86,400 at 1 a second is exactly a day.
func TestCheckSchedule(t *testing.T) {
	for _, c := range []struct {
		load  plan.Load
		count int
		ok    bool
	}{
		{plan.Load{Rate: 1}, 86400, true},
		{plan.Load{Rate: 1}, 86401, false},
		{plan.Load{Rate: 1e-9}, 5, false},
		{plan.Load{Users: 6, Rate: 1e-9}, 5, false},
		{plan.Load{Concurrency: 1}, 1e9, true},
		{plan.Load{Rate: 1e-9}, 0, true}, // stopped by a duration
	} {
		if err := CheckSchedule(c.load, c.count, "requests"); (err == nil) != c.ok {
			t.Errorf("%s, %d requests: %v", c.load, c.count, err)
		}
	}
}
