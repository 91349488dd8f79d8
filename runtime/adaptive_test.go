package runtime

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/transport"
)

// capacityExperiment targets a simulated server that decodes at most 4
// sequences at once (B = 4): below B throughput grows with concurrency,
// above it requests queue, throughput is flat and TTFT jumps. The base TTFT
// of 40 ms is far above the scheduling noise of a busy CI machine (up to
// ~10 ms seen with every test package running at once, once ~25 ms in a
// fresh CI run), so noise alone rarely doubles p99 TTFT below B; a queued
// request waits a whole ~100 ms request, so above B it always does. The
// verdicts are asserted within one step of B: they are judged on measured
// times, and a test must not fail on a slow machine.
func capacityExperiment(sweep *Sweep, requests int) *Experiment {
	return &Experiment{
		Name: "capacity",
		Endpoint: Endpoint{URL: "sim://?max_batch=4&ttft=40ms&itl=4ms&itl_per_seq=0ms&prefill_per_token=0s&jitter=0",
			API: transport.Chat, Stream: true, Model: "m", Timeout: 60e9},
		Dataset:  dataset.Synthetic{Input: dataset.Fixed{N: 16}, Output: dataset.Fixed{N: 16}, Entries: 10},
		Load:     Load{Concurrency: 1},
		Requests: requests,
		Sweep:    sweep,
	}
}

func runCapacity(t *testing.T, e *Experiment) *ExperimentResult {
	t.Helper()
	if err := e.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := RunExperiment(context.Background(), e, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func throughputAt(res *ExperimentResult, c float64) float64 {
	for _, p := range res.Points {
		if p.Params[metrics.ParamConcurrency] == c {
			return p.Outcome.Summary.OutputTokenThroughput
		}
	}
	return 0
}

func TestGridSweepFlattensAtBatchCapacity(t *testing.T) {
	sweep := &Sweep{Params: []SweepParam{{Name: metrics.ParamConcurrency, Values: []float64{1, 2, 4, 8, 16, 32}}}}
	res := runCapacity(t, capacityExperiment(sweep, 24))
	t1, t4, t8, t32 := throughputAt(res, 1), throughputAt(res, 4), throughputAt(res, 8), throughputAt(res, 32)
	t.Logf("output tok/s: c=1 %.0f, c=4 %.0f, c=8 %.0f, c=32 %.0f; saturation %+v", t1, t4, t8, t32, res.Capacity.Saturation)
	if t4 < 2.5*t1 {
		t.Errorf("throughput at concurrency 4 (%.0f) should be about 4× concurrency 1's (%.0f)", t4, t1)
	}
	if t8 > 1.25*t4 || t32 > 1.25*t4 {
		t.Errorf("throughput beyond the batch capacity (c=8 %.0f, c=32 %.0f) should stay flat at c=4's %.0f", t8, t32, t4)
	}
	if s := res.Capacity.Saturation; s == nil || !s.Saturated {
		t.Errorf("saturation = %+v, want saturated", s)
	} else if at := res.Points[s.Point].Params[metrics.ParamConcurrency]; at < 2 || at > 8 {
		t.Errorf("saturation at concurrency %v, want within one step of 4", at)
	}
}

func TestUntilSaturationStopsNearBatchCapacity(t *testing.T) {
	sweep := &Sweep{Saturation: &Saturation{Over: metrics.ParamConcurrency, Start: 1, Factor: 2, Limit: 1024, Growth: 0.05, TTFTFactor: 2}}
	res := runCapacity(t, capacityExperiment(sweep, 24))
	var tried []float64
	for _, p := range res.Points {
		tried = append(tried, p.Params[metrics.ParamConcurrency])
	}
	s := res.Capacity.Saturation
	t.Logf("tried %v; %+v", tried, s)
	if s == nil || !s.Saturated {
		t.Fatalf("never saturated: %+v", s)
	}
	if at := res.Points[s.Point].Params[metrics.ParamConcurrency]; at < 2 || at > 8 {
		t.Errorf("saturation at concurrency %v, want within one step of 4", at)
	}
	if last := tried[len(tried)-1]; last > 16 {
		t.Errorf("kept growing to %v after saturating", last)
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

func TestSearchFindsLargestPassingConcurrency(t *testing.T) {
	gate, err := metrics.ParseGate("ttft.p99 < 90ms")
	if err != nil {
		t.Fatal(err)
	}
	sweep := &Sweep{Search: &Search{Gate: gate, Over: metrics.ParamConcurrency, Lo: 1, Hi: 32, Precision: 0.05}}
	res := runCapacity(t, capacityExperiment(sweep, 16))
	if res.Capacity.Search == nil || !res.Capacity.Search.Found {
		t.Fatalf("search found nothing: %+v", res.Capacity.Search)
	}
	best := res.Capacity.Search.Best
	// Checked against the points it ran: best passed, and every tried load
	// above it failed.
	for _, p := range res.Points {
		c := p.Params[metrics.ParamConcurrency]
		v, err := gate.Measure(&p.Outcome.Summary)
		passed := err == nil && gate.Check(v, 0)
		t.Logf("concurrency %v: ttft.p99 %.1f ms, passed %v", c, v/1e6, passed)
		if c == best && !passed {
			t.Errorf("best load %v did not pass", best)
		}
		if c > best && passed {
			t.Errorf("load %v passed but is above the reported best %v", c, best)
		}
	}
	if best < 3 || best > 5 {
		t.Errorf("best concurrency %v, want the batch capacity 4 (±1 for a slow machine)", best)
	}
	assertOwnLabels(t, res)
	if p := res.Points[res.Capacity.Search.Point]; p.Params[metrics.ParamConcurrency] != best {
		t.Errorf("search names point %d (%s), want the one at %v", res.Capacity.Search.Point, p.Params.Label(), best)
	}
	if got := ReplayDecisions(res.Experiment, res.Points); got == nil || !reflect.DeepEqual(got.Search, res.Capacity.Search) {
		t.Errorf("replayed search %+v, want the run's %+v", got, res.Capacity.Search)
	}
}
