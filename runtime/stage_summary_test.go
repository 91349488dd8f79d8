package runtime

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// A stages() open loop against the simulator: each stage's summary holds
// exactly the requests planned in it (∫rate per stage: 5, 15, 5 — the
// schedule, not the server's speed, decides), the whole holds all, and a
// gate "@ stage=NAME" or "@ stage=INDEX" is judged on that stage alone.
func TestStageSummariesAndGates(t *testing.T) {
	l := plan.Load{Rate: 50, Arrival: plan.Constant, Burstiness: 1, Stages: &plan.Stages{List: []plan.Stage{
		{Duration: 200 * time.Millisecond, Target: 50}, {Name: "hold", Duration: 300 * time.Millisecond, Target: 50},
		{Duration: 200 * time.Millisecond, Target: 0}}}}
	job := Job{
		Endpoint: plan.Endpoint{URL: "sim://?ttft=1ms&itl=1ms", API: transport.Chat, Stream: true, Model: "m", Timeout: 30 * time.Second},
		Entries:  []dataset.Entry{{Text: "hello there", MaxTokens: 4}},
		Point:    engine.Point{Load: l, Stop: plan.Stop{Duration: l.StagesDuration()}},
		Count:    ByUsage, Records: &recordSink{},
	}
	out, err := Execute(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Stages) != 3 {
		t.Fatalf("%d stage summaries, want 3", len(out.Stages))
	}
	for i, want := range []int{5, 15, 5} {
		if got := out.Stages[i].Summary.Completed + out.Stages[i].Summary.Failed; got != want || out.Stages[i].Index != i {
			t.Errorf("stage %d (%s): %d requests, want %d", i, out.Stages[i].Label, got, want)
		}
	}
	if out.Stages[1].Label != "hold" || out.Stages[2].Label != "stage 2" {
		t.Errorf("labels %q, %q", out.Stages[1].Label, out.Stages[2].Label)
	}
	if out.Summary.Completed != 25 {
		t.Errorf("whole point: %d completed, want 25", out.Summary.Completed)
	}
	for _, c := range []struct {
		gate string
		want int
	}{{"error_rate < 1% @ stage=hold", 15}, {"error_rate < 1% @ stage=0", 5}, {"error_rate < 1%", 25}} {
		g, err := metrics.ParseGate(c.gate)
		if err != nil {
			t.Fatal(err)
		}
		if got := out.gateSummary(g).Completed; got != c.want {
			t.Errorf("%s judged on %d requests, want %d", c.gate, got, c.want)
		}
	}
}

// A resumed stages() run keeps its per-stage summaries: checkpoint.json
// holds them, and the restored outcome has them.
func TestCheckpointKeepsStages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "checkpoint.json")
	cp, _, _ := LoadCheckpoint(path)
	out := &Outcome{Summary: checkpointSummary(), Stages: []StageSummary{
		{Index: 0, Label: "stage 0", Target: 8, Summary: checkpointSummary()}, {Index: 1, Name: "hold", Label: "hold", Target: 8}}}
	cp.Add(CheckpointOf([]byte(`{}`), 0, "concurrency8", "staged/concurrency8", plan.Params{metrics.ParamConcurrency: 8}, out))
	if err := cp.Save(path); err != nil {
		t.Fatal(err)
	}
	back, _, err := LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := back.Find([]byte(`{}`))
	if !ok {
		t.Fatal("point not found")
	}
	got := p.Result().Outcome.Stages
	if len(got) != 2 || got[1].Name != "hold" || got[1].Target != 8 || got[0].Summary.Completed != out.Stages[0].Summary.Completed {
		t.Errorf("restored stages %+v", got)
	}
}

// A stages() experiment is refused under --shard before anything is sent.
func TestStagesAreNotSharded(t *testing.T) {
	e := &plan.Experiment{Name: "staged", Endpoint: plan.Endpoint{URL: "http://127.0.0.1:1/v1"},
		Load: plan.Load{Concurrency: 4, Stages: &plan.Stages{List: []plan.Stage{{Duration: time.Second, Target: 4}}}}}
	if err := CheckShardable(e, engine.Shard{Index: 1, Count: 2}); err == nil {
		t.Error("a stages() experiment was accepted under --shard")
	}
}
