package runtime

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

func checkpointSummary() metrics.Summary {
	goodput := 12.5
	return metrics.Summary{
		TimeToFirstToken:      metrics.NewDistribution([]float64{4e6, 5e6, 7.5e6, 12.8e6}),
		InterTokenLatency:     metrics.NewDistribution([]float64{1.1e6, 0.9e6}),
		OutputTokenThroughput: 1234.5678901234567, RequestThroughput: 1.0 / 3, RequestGoodput: &goodput,
		RequestCount: 4, Completed: 4, Failed: 1, ErrorRate: 0.2, Duration: 123456789,
		Errors: []metrics.ErrorCount{{Class: metrics.ErrHTTP, Status: 500, Message: "boom", Count: 1}},
	}
}

// A saved checkpoint reads back to the same summary, so a resumed sweep
// reports exactly the numbers the interrupted one measured.
func TestCheckpointRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "checkpoint.json")
	cp, found, err := LoadCheckpoint(path)
	if err != nil || found || len(cp.Points) != 0 || cp.NextID() != 0 {
		t.Fatalf("missing file: %+v found=%v err=%v", cp, found, err)
	}
	pr := PointResult{Params: plan.Params{metrics.ParamConcurrency: 8},
		Outcome: &Outcome{Counting: Counting{Mode: ByUsage, Fallbacks: 2}, Summary: checkpointSummary()}}
	cp.Add(CheckpointOf([]byte(`{"b": 2, "a": [1, 2]}`), 0, "concurrency8", "artifacts/m-openai-chat-concurrency8", pr.Params, pr.Outcome))
	if err := cp.Save(path); err != nil {
		t.Fatal(err)
	}
	back, found, err := LoadCheckpoint(path)
	if err != nil || !found {
		t.Fatalf("reload: found=%v err=%v", found, err)
	}
	p, ok := back.Find([]byte("{\"b\":2,\n \"a\":[1,2]}")) // same config, other whitespace
	if !ok {
		t.Fatalf("config not found in %+v", back.Points)
	}
	got := p.Result()
	want := checkpointSummary()
	if !reflect.DeepEqual(flat(got.Outcome.Summary), flat(want)) {
		t.Errorf("summary changed:\n got %+v\nwant %+v", got.Outcome.Summary, want)
	}
	if got.Outcome.Summary.TimeToFirstToken.Percentile(99) != want.TimeToFirstToken.P99 {
		t.Errorf("p99 of a decoded distribution = %v", got.Outcome.Summary.TimeToFirstToken.Percentile(99))
	}
	if got.Params.Label() != "concurrency8" || got.Params[metrics.ParamConcurrency] != 8 || got.Outcome.Counting.String() != pr.Outcome.Counting.String() {
		t.Errorf("restored point %+v counting %v", got, got.Outcome.Counting)
	}
	if got.Outcome.Interrupted || len(got.Repeats) != 1 {
		t.Errorf("restored outcome %+v", got.Outcome)
	}
	if _, ok := back.Find([]byte(`{"b":3,"a":[1,2]}`)); ok {
		t.Error("a different config matched")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("save left temporary files: %v", entries)
	}
}

// flat strips the unexported state of a summary's distributions (their
// values), which a checkpoint deliberately does not keep.
func flat(s metrics.Summary) metrics.Summary {
	for _, d := range []**metrics.Distribution{&s.TimeToFirstToken, &s.InterTokenLatency} {
		if *d != nil {
			c := **d
			*d = &metrics.Distribution{Count: c.Count, Avg: c.Avg, Min: c.Min, Max: c.Max, Std: c.Std,
				P1: c.P1, P5: c.P5, P10: c.P10, P25: c.P25, P50: c.P50, P75: c.P75, P90: c.P90, P95: c.P95, P99: c.P99}
		}
	}
	return s
}

// IDs are stable: a re-measured point keeps its place, new points number
// after the highest, whatever order the checkpoint lists them in.
func TestCheckpointIDsAndReplace(t *testing.T) {
	cp := &Checkpoint{}
	cp.Add(CheckpointPoint{Config: []byte(`{"x":1}`), ID: 3, Label: "a"})
	cp.Add(CheckpointPoint{Config: []byte(`{"x":2}`), ID: 0, Label: "b"})
	if cp.NextID() != 4 {
		t.Errorf("NextID = %d, want 4", cp.NextID())
	}
	cp.Add(CheckpointPoint{Config: []byte(`{ "x": 1 }`), ID: 3, Label: "a2"})
	if len(cp.Points) != 2 || cp.Points[0].Label != "a2" {
		t.Errorf("replace by config: %+v", cp.Points)
	}
}

// A corrupt or foreign checkpoint is refused with a way out, never half
// read: resuming from a misread file would report wrong numbers.
func TestCheckpointRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"corrupt.json": `{"version": 1, "points": [`,
		"future.json":  `{"version": 99, "points": []}`,
		"genai.json":   `{"Results": {"run_configs": []}}`,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, found, err := LoadCheckpoint(path)
		if err == nil || !found || !strings.Contains(err.Error(), "delete it") {
			t.Errorf("%s: found=%v err=%v", name, found, err)
		}
	}
}
