package runtime

import (
	"testing"

	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// TestPointSeedIsThePoint: a point's seed follows its parameters, not
// their order or when it ran; another load gives another seed, and the
// scenario's seed still matters.
func TestPointSeedIsThePoint(t *testing.T) {
	a := PointSeed(plan.Params{"concurrency": 4, "input_tokens": 128})
	b := PointSeed(plan.Params{"input_tokens": 128, "concurrency": 4})
	if a(7) != b(7) {
		t.Error("the same point seeded two ways")
	}
	for _, other := range []plan.Params{{"concurrency": 5, "input_tokens": 128}, {"rate": 4, "input_tokens": 128}, {"concurrency": 4}} {
		if PointSeed(other)(7) == a(7) {
			t.Errorf("%v seeded as %v", other, plan.Params{"concurrency": 4, "input_tokens": 128})
		}
	}
	if a(7) == a(8) {
		t.Error("the scenario's seed is lost")
	}
	if PointSeed(plan.Params{"rate": 0})(1) != PointSeed(plan.Params{"rate": negZero()})(1) {
		t.Error("-0 and 0 seeded apart")
	}
}

func negZero() float64 {
	z := 0.0
	return -z
}

// TestReseedKeepsSeedRelations: a mix's components with one seed still
// draw alike after reseeding; seedless file sources are left as they are.
func TestReseedKeepsSeedRelations(t *testing.T) {
	syn := dataset.Synthetic{Input: dataset.Fixed{N: 8}, Entries: 3, Seed: 1}
	files := dataset.JSONL{Path: "prompts.jsonl"}
	mix := dataset.Mix{Components: []dataset.Source{syn, syn, files}, Seed: 9}
	got := dataset.Reseed(mix, PointSeed(plan.Params{"concurrency": 2})).(dataset.Mix)
	c0, c1 := got.Components[0].(dataset.Synthetic), got.Components[1].(dataset.Synthetic)
	if c0.Seed != c1.Seed || c0.Seed == 1 || got.Seed == 9 {
		t.Errorf("seeds after reseeding: mix %d, components %d and %d", got.Seed, c0.Seed, c1.Seed)
	}
	if got.Components[2] != dataset.Source(files) {
		t.Errorf("a JSONL source changed: %v", got.Components[2])
	}
	if mix.Components[0].(dataset.Synthetic).Seed != 1 {
		t.Error("reseeding changed the experiment's own dataset")
	}
}

// TestJobPromptsPerPoint: with PointSeeds each point's job draws its own
// prompts, the same ones every time it is built (a repeat, a resume);
// without, every point sends the experiment's prompts.
func TestJobPromptsPerPoint(t *testing.T) {
	e := &plan.Experiment{Name: "x", Requests: 3,
		Endpoint: plan.Endpoint{URL: "http://127.0.0.1:1/v1", API: transport.Chat, Model: "m"},
		Dataset:  dataset.Synthetic{Input: dataset.Fixed{N: 12}, Entries: 4, Seed: 3}, Load: plan.Load{Concurrency: 1}}
	text := func(c float64) string {
		t.Helper()
		job, err := newJob(e, Options{}, e.Base().With("concurrency", c))
		if err != nil {
			t.Fatal(err)
		}
		return job.Entries[0].Text
	}
	if text(1) != text(2) {
		t.Error("same_prompts: the points' prompts differ")
	}
	e.PointSeeds = true
	if text(1) == text(2) {
		t.Error("point seeds: points 1 and 2 sent the same prompt")
	}
	if first, again := text(2), text(2); first != again {
		t.Error("point seeds: one point drew two sets of prompts")
	}
}

// TestPointSeedsSaved: the saved plan says whether the points drew their
// own prompts, and a plan saved before the field reads as same prompts.
func TestPointSeedsSaved(t *testing.T) {
	for _, seeds := range []bool{true, false} {
		e := &plan.Experiment{Name: "x", Dataset: dataset.Synthetic{Input: dataset.Fixed{N: 1}}, PointSeeds: seeds}
		s, err := RecordOf("s", e, PointKey{Experiment: "x", Params: plan.Params{"concurrency": 1}, Repeat: 1}, 0).Encode()
		if err != nil {
			t.Fatal(err)
		}
		r, err := DecodePointRecord(s)
		if err != nil {
			t.Fatal(err)
		}
		if r.Plan.PointSeeds != seeds {
			t.Errorf("PointSeeds %v saved as %s, read back %v", seeds, s, r.Plan.PointSeeds)
		}
	}
	old := `{"version":1,"plan":{"name":"x","endpoint":{"url":"u","api":"chat","stream":true,"model":"m"},"dataset":"d","traffic":{"concurrency":1},"repeats":1,"seed":0},"point":{"params":{"concurrency":1},"repeat":1,"index":0},"token_counting":{"mode":"usage"}}`
	r, err := DecodePointRecord(old)
	if err != nil {
		t.Fatal(err)
	}
	if r.Plan.PointSeeds {
		t.Error("an older saved plan reads as PointSeeds, want false")
	}
}
