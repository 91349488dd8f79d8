package runtime

import (
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// FuzzLoadCheckpoint feeds the checkpoint reader arbitrary files, seeded
// with a saved checkpoint. A file is refused naming it, or loaded into a
// checkpoint that saves and loads again to the same points, finds each of
// them by its config, and numbers a new point after all of them.
func FuzzLoadCheckpoint(f *testing.F) {
	seed := filepath.Join(f.TempDir(), "checkpoint.json")
	cp := &Checkpoint{}
	out := &Outcome{Counting: Counting{Mode: ByUsage, Fallbacks: 2}, Summary: checkpointSummary()}
	cp.Add(CheckpointOf([]byte(`{"b": 2, "a": [1, 2]}`), 0, "concurrency8", "artifacts/x", plan.Params{metrics.ParamConcurrency: 8}, out))
	cp.Add(CheckpointOf([]byte(`{"b": 3}`), 4, "concurrency16", "", plan.Params{metrics.ParamConcurrency: 16, metrics.ParamRate: 0.5}, &Outcome{}))
	if err := cp.Save(seed); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"version": 1, "points": [{"config": {"x": 1}, "id": 3}, {"config": {"x": 1}, "id": 3}]}`))
	f.Add([]byte(`{"version": 1, "points": [{"config": 5, "id": -1, "summary": {"time_to_first_token": {"avg": 1}}}]}`))
	f.Add([]byte(`{"version": 1, "points": [`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "checkpoint.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cp, found, err := LoadCheckpoint(path)
		if err != nil {
			if !found || !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q: want found and the file named", err)
			}
			return
		}
		next := cp.NextID()
		for _, p := range cp.Points {
			if p.ID >= next {
				t.Fatalf("NextID %d is not after point ID %d", next, p.ID)
			}
			if _, ok := cp.Find(p.Config); !ok && validJSON(p.Config) {
				t.Fatalf("point %+v not found by its own config", p)
			}
			_ = p.Result()
		}
		again := filepath.Join(dir, "again.json")
		if err := cp.Save(again); err != nil {
			return // e.g. a config that is not JSON cannot be written back; it was never written by us
		}
		back, _, err := LoadCheckpoint(again)
		if err != nil {
			t.Fatalf("a saved checkpoint does not load: %v", err)
		}
		if err := back.Save(again); err != nil {
			t.Fatal(err)
		}
		third, _, err := LoadCheckpoint(again)
		if err != nil || !reflect.DeepEqual(flatPoints(back), flatPoints(third)) {
			t.Fatalf("save and load is not stable: %v\n%+v\n%+v", err, back, third)
		}
		if len(back.Points) != len(cp.Points) {
			t.Fatalf("%d points saved, %d loaded", len(cp.Points), len(back.Points))
		}
	})
}

func flatPoints(c *Checkpoint) []CheckpointPoint {
	out := make([]CheckpointPoint, len(c.Points))
	for i, p := range c.Points {
		p.Summary = flat(p.Summary)
		out[i] = p
	}
	return out
}

func validJSON(b []byte) bool { _, err := compactJSON(b); return err == nil }

// FuzzDecodePointRecord feeds the saved-plan decoder (the records file's
// llmbench.point_record) arbitrary strings, seeded with an encoded plan. A
// plan decodes with an error, or to a record that encodes and decodes back
// to itself and rebuilds its experiment or says why not.
func FuzzDecodePointRecord(f *testing.F) {
	gate, err := metrics.ParseGate("ttft.p99 < 300ms @ component=chat")
	if err != nil {
		f.Fatal(err)
	}
	e := &plan.Experiment{
		Name: "chat", Dataset: dataset.Synthetic{Input: dataset.Fixed{N: 16}, Output: dataset.Fixed{N: 8}},
		Endpoint: plan.Endpoint{URL: "http://h:8000", API: transport.Chat, Stream: true, Model: "m", TokenCount: "usage"},
		Load:     plan.Load{Concurrency: 1}, Requests: 20, Warmup: 2, Repeats: 3, Seed: 7,
		Gates: []metrics.Gate{gate}, Goodput: []metrics.SLO{{Metric: metrics.GoodputTTFT, Value: 500}},
		Sweep: &plan.Sweep{Search: &plan.Search{Gate: gate, Over: metrics.ParamConcurrency, Lo: 1, Hi: 32, Precision: 0.05}},
	}
	rec := RecordOf("scen", e, PointKey{Experiment: "chat", Params: plan.Params{metrics.ParamConcurrency: 8}, Repeat: 2}, 3)
	s, err := rec.Encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(s)
	f.Add(`{"version": 1, "plan": {"gates": ["ttft <"], "sweep": {"search": {"gate": ""}}}}`)
	f.Add(`{"version": 1, "plan": {"goodput": [{"metric": "nope", "value": 1}]}, "point": {"params": {"x": 1e308}}}`)
	f.Add(`{"version": 2, "plan": {"gates": ["ttft <"], "sweep": {"search": {"gate": ""}}}}`)
	f.Add(`{"version": 2, "plan": {"error_budget": "200%"}}`)
	f.Add(`{"version": 3}`)
	f.Fuzz(func(t *testing.T, s string) {
		rec, err := DecodePointRecord(s)
		if err != nil {
			return
		}
		enc, err := rec.Encode()
		if err != nil {
			t.Fatalf("a decoded record does not encode: %v", err)
		}
		// The stored form is a fixed point ("gates": [] and no gates are
		// the same plan, so compare encodings rather than Go values).
		back, err := DecodePointRecord(enc)
		if err != nil {
			t.Fatalf("%s does not decode: %v", enc, err)
		}
		if again, err := back.Encode(); err != nil || again != enc {
			t.Fatalf("round trip: %v\n got %s\nwant %s", err, again, enc)
		}
		if back.Plan.Name != rec.Plan.Name || len(back.Plan.Gates) != len(rec.Plan.Gates) || len(back.Plan.Goodput) != len(rec.Plan.Goodput) {
			t.Fatalf("plan %+v read back as %+v", rec.Plan, back.Plan)
		}
	})
}

// FuzzSimConfig feeds the sim:// URL parser arbitrary strings. A URL is
// refused, always with the same message, or gives a valid simulator
// config in which no part of the URL was silently dropped.
func FuzzSimConfig(f *testing.F) {
	for _, s := range []string{"sim://", "sim://?max_batch=8&itl=5ms&error_rate_500=0.01", "sim://?ttft=-1s",
		"sim://?seed=7&reasoning=true&reasoning_tokens=4&jitter=1", "sim://?nope=1&max_batch=0", "sim://?max_batch=8;itl=5ms",
		"sim://max_batch=8", "sim://?itl=5ms&itl=6ms", "sim://?error_rate_429=0.6&error_rate_500=0.6", "sim://?%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		cfg, err := SimConfig(raw)
		if err != nil {
			for range 3 {
				if _, again := SimConfig(raw); again == nil || again.Error() != err.Error() {
					t.Fatalf("SimConfig(%q): %v, then %v", raw, err, again)
				}
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("SimConfig(%q) accepted an invalid config: %v", raw, err)
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("SimConfig(%q) accepted a URL that does not parse: %v", raw, err)
		}
		if _, qerr := url.ParseQuery(u.RawQuery); qerr != nil || u.Host != "" || u.Path != "" || u.Opaque != "" || u.User != nil || u.Fragment != "" {
			t.Fatalf("SimConfig(%q) accepted a URL with parts it ignores (host %q, path %q, query error %v)", raw, u.Host, u.Path, qerr)
		}
	})
}
