package runtime

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// capacityExperiment targets a simulated server that decodes at most 4
// sequences at once. The tests here hold the adaptive sweeps' wiring —
// each measured point named by its own load, the verdict the one its
// points replay to — whatever the machine measured; what the verdicts come
// to on this server is measured time, a benchmark's to report
// (bench BenchmarkCapacityVerdicts), and the drivers' decisions are
// metrics' to test on planned points (TestSaturator, TestSearcher).
func capacityExperiment(sweep *plan.Sweep, requests int) *plan.Experiment {
	return &plan.Experiment{
		Name: "capacity",
		Endpoint: plan.Endpoint{URL: "sim://?max_batch=4&ttft=40ms&itl=4ms&itl_per_seq=0ms&prefill_per_token=0s&jitter=0",
			API: transport.Chat, Stream: true, Model: "m", Timeout: 60e9},
		Dataset:  dataset.Synthetic{Input: dataset.Fixed{N: 16}, Output: dataset.Fixed{N: 16}, Entries: 10},
		Load:     plan.Load{Concurrency: 1},
		Requests: requests,
		Sweep:    sweep,
	}
}

func runCapacity(t *testing.T, e *plan.Experiment) *ExperimentResult {
	t.Helper()
	if err := Validate(e); err != nil {
		t.Fatal(err)
	}
	res, err := RunExperiment(context.Background(), e, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestUntilSaturationDecidesFromItsPoints(t *testing.T) {
	sweep := &plan.Sweep{Saturation: &plan.Saturation{Over: metrics.ParamConcurrency, Start: 1, Factor: 2, Limit: 16, Growth: 0.05, TTFTFactor: 2}}
	res := runCapacity(t, capacityExperiment(sweep, 24))
	var tried []float64
	for _, p := range res.Points {
		tried = append(tried, p.Params[metrics.ParamConcurrency])
	}
	s := res.Capacity.Saturation
	t.Logf("tried %v; %+v", tried, s)
	if s == nil {
		t.Fatal("no verdict")
	}
	if last := tried[len(tried)-1]; last > 16 {
		t.Errorf("grew to %v, past the limit of 16", last)
	}
	assertOwnLabels(t, res)
	if s.Source != SaturationBySweep {
		t.Errorf("saturation source %q, want %q", s.Source, SaturationBySweep)
	}
	if got := ReplayDecisions(res.Experiment, res.Points); got == nil || !reflect.DeepEqual(got.Saturation, s) {
		t.Errorf("replayed verdict %+v, want the run's %+v", got, s)
	}
}

// assertOwnLabels checks that every point an adaptive sweep measured is
// named by its own load, as a grid over the same loads names it.
func assertOwnLabels(t *testing.T, res *ExperimentResult) {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range res.Points {
		want := fmt.Sprintf("concurrency%d", int(p.Params[metrics.ParamConcurrency]))
		if got := p.Params.Label(); got != want || seen[got] {
			t.Errorf("point at concurrency %v is labelled %q (seen before: %v), want %q", p.Params[metrics.ParamConcurrency], got, seen[got], want)
		}
		seen[p.Params.Label()] = true
	}
}

func TestSearchReportsAPointItPassed(t *testing.T) {
	gate, err := metrics.ParseGate("ttft.p99 < 90ms")
	if err != nil {
		t.Fatal(err)
	}
	sweep := &plan.Sweep{Search: &plan.Search{Gate: gate, Over: metrics.ParamConcurrency, Lo: 1, Hi: 32, Precision: 0.05}}
	res := runCapacity(t, capacityExperiment(sweep, 16))
	s := res.Capacity.Search
	if s == nil {
		t.Fatal("no search outcome")
	}
	// Checked against the points it ran, whatever the machine's load made
	// of their TTFT: the best passed, and nothing found means none passed.
	for _, p := range res.Points {
		c := p.Params[metrics.ParamConcurrency]
		v, err := gate.Measure(&p.Outcome.Summary)
		passed := err == nil && gate.Check(v, 0)
		t.Logf("concurrency %v: ttft.p99 %.1f ms, passed %v", c, v/1e6, passed)
		if s.Found && c == s.Best && !passed {
			t.Errorf("best load %v did not pass", s.Best)
		}
		if !s.Found && passed {
			t.Errorf("search found nothing, but concurrency %v passed", c)
		}
	}
	assertOwnLabels(t, res)
	if s.Found {
		if p := res.Points[s.Point]; p.Params[metrics.ParamConcurrency] != s.Best {
			t.Errorf("search names point %d (%s), want the one at %v", s.Point, p.Params.Label(), s.Best)
		}
	}
	if got := ReplayDecisions(res.Experiment, res.Points); got == nil || !reflect.DeepEqual(got.Search, res.Capacity.Search) {
		t.Errorf("replayed search %+v, want the run's %+v", got, res.Capacity.Search)
	}
}
