package calibrate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/slowdown"
)

// tinyScenario is a scenario of one small point against the simulator,
// with two baseline gates and an absolute one.
func tinyScenario(t *testing.T, gates ...string) *runtime.Scenario {
	t.Helper()
	e := plan.Experiment{Name: "chat",
		Endpoint: plan.Endpoint{URL: "sim://?itl=2ms&ttft=5ms", API: transport.Chat, Stream: true, Model: "llmbench-sim", Timeout: time.Minute},
		Dataset:  dataset.Synthetic{Input: dataset.Fixed{N: 32}, Output: dataset.Fixed{N: 8}, Entries: 10, Seed: 1},
		Load:     plan.Load{Concurrency: 2}, Requests: 8, Warmup: 2, Repeats: 2, Seed: 1}
	for _, s := range gates {
		g, err := metrics.ParseGate(s)
		if err != nil {
			t.Fatal(err)
		}
		e.Gates = append(e.Gates, g)
	}
	if err := runtime.Validate(&e); err != nil {
		t.Fatal(err)
	}
	return &runtime.Scenario{File: "tiny.star", Experiments: []plan.Experiment{e}}
}

// TestCalibrateScenarioResumes calibrates a tiny scenario on the
// simulator, is interrupted after its first run, resumes measuring only
// the rest, and a third call measures nothing and reports the same.
func TestCalibrateScenarioResumes(t *testing.T) {
	scen := tinyScenario(t, "itl.p50 <= baseline * 1.10", "output_token_throughput >= baseline * 0.9", "ttft.p99 < 1s")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	measured := 0
	opt := ScenarioOptions{Pairs: 2, Slowdown: slowdown.Shares{ITL: 0.5}, Store: dir,
		Progress: func(done, total int, r *Run) { measured++; cancel() }}
	if _, err := CalibrateScenario(ctx, scen, opt); failure.ClassOf(err) != failure.Interrupted {
		t.Fatalf("interrupted calibration: %v", err)
	}
	if measured != 1 {
		t.Fatalf("%d runs measured before the interruption, want 1", measured)
	}
	measured = 0
	opt.Progress = func(done, total int, r *Run) {
		measured++
		if total != 4 {
			t.Errorf("resumed: %d runs to measure, want the 4 missing", total)
		}
	}
	rep, err := CalibrateScenario(context.Background(), scen, opt)
	if err != nil {
		t.Fatal(err)
	}
	if measured != 4 {
		t.Errorf("resumed: %d runs measured, want 4", measured)
	}
	if len(rep.Gates) != 2 || rep.Runs != 5 {
		t.Fatalf("report of %d runs, gates %+v; want the 2 baseline gates of 5 runs", rep.Runs, rep.Gates)
	}
	for _, g := range rep.Gates {
		if g.FalseAlarms.Pairs != 2 || g.Detections.Pairs != 2 || g.Repeats != 2 || g.Requests != 8 || g.FalseAlarms.Errors != 0 {
			t.Errorf("%s: %+v", g.Gate, g)
		}
	}
	if itl := rep.Gates[0]; itl.Gate != "itl.p50 <= baseline * 1.10" || !(itl.SlowdownChange > 0.2) {
		t.Errorf("an ITL slowdown of 50%% changed %s by %v", itl.Gate, itl.SlowdownChange)
	}
	measured = 0
	again, err := CalibrateScenario(context.Background(), scen, opt)
	if err != nil || measured != 0 {
		t.Fatalf("third call: %d runs measured, %v", measured, err)
	}
	var a, b bytes.Buffer
	if err := rep.WriteJSON(&a); err != nil {
		t.Fatal(err)
	}
	_ = again.WriteJSON(&b)
	if a.String() != b.String() {
		t.Errorf("the same runs judged differently:\n%s\n%s", a.String(), b.String())
	}
	var decoded map[string]any
	if err := json.Unmarshal(a.Bytes(), &decoded); err != nil {
		t.Errorf("--json is not JSON: %v", err)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil || !strings.Contains(text.String(), "itl.p50 <= baseline * 1.10") {
		t.Errorf("text report %q (%v)", text.String(), err)
	}
	other := opt
	other.Slowdown = slowdown.Shares{TTFT: 0.5}
	if _, err := CalibrateScenario(context.Background(), scen, other); err == nil || !strings.Contains(err.Error(), "holds runs made otherwise") {
		t.Errorf("a store of another slowdown: %v", err)
	}
}

// TestCalibrateScenarioRefuses: what cannot be calibrated is refused
// before anything is sent, as bad input; a server that is down is a run
// failure naming it.
func TestCalibrateScenarioRefuses(t *testing.T) {
	gated := tinyScenario(t, "itl.p50 <= baseline * 1.10")
	for _, c := range []struct {
		name string
		scen *runtime.Scenario
		opt  ScenarioOptions
		want string
	}{
		{"no baseline gate", tinyScenario(t, "ttft.p99 < 1s"), ScenarioOptions{Pairs: 1, Slowdown: slowdown.Shares{ITL: 0.1}}, "tiny.star has no baseline gate"},
		{"no slowdown", gated, ScenarioOptions{Pairs: 1}, "--slowdown: want at least one share > 0"},
		{"no pairs", gated, ScenarioOptions{Slowdown: slowdown.Shares{ITL: 0.1}}, "--pairs: got 0"},
	} {
		_, err := CalibrateScenario(context.Background(), c.scen, c.opt)
		if failure.ClassOf(err) != failure.Input || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want bad input saying %q", c.name, err, c.want)
		}
	}
	down := tinyScenario(t, "itl.p50 <= baseline * 1.10")
	down.Experiments[0].Endpoint.URL = "http://127.0.0.1:1/v1"
	_, err := CalibrateScenario(context.Background(), down, ScenarioOptions{Pairs: 1, Slowdown: slowdown.Shares{ITL: 0.1}, Store: t.TempDir()})
	if !errors.Is(err, runtime.ErrUnreachable) || !strings.Contains(err.Error(), "http://127.0.0.1:1/v1") {
		t.Errorf("a server that is down: %v", err)
	}
}
