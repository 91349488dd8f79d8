package builtins

import (
	"fmt"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// TestResultsObject feeds testdata/check/results.star's check() with a
// fake three-point sweep; its asserts say what the results object holds.
func TestResultsObject(t *testing.T) {
	scen, err := Load("testdata/check/results.star", nil, testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	exp := &scen.Experiments[0]
	res := runtime.ExperimentResult{Experiment: exp}
	for _, c := range []float64{4, 1, 2} { // out of order on purpose
		ttft := map[float64]float64{1: 100, 2: 300, 4: 900}[c] * 1e6
		out := &runtime.Outcome{Summary: summaryWith(ttft)}
		pr := runtime.PointResult{Params: plan.Params{"concurrency": c}, Outcome: out}
		pr.Gates = runtime.EvaluateGates(exp, nil, pr.Params, out)
		res.Points = append(res.Points, pr)
	}
	res.Capacity = runtime.AnalyzeCapacity(&res, nil)
	if err := scen.Check([]runtime.ExperimentResult{res}); err != nil {
		t.Fatal(err)
	}
}

// summaryWith is a point where four requests took ttft ns to first token,
// 5 ms between tokens, 10 tokens each, and one more failed with HTTP 500.
func summaryWith(ttft float64) metrics.Summary {
	goodput := 7.5
	return metrics.Summary{
		TimeToFirstToken:      metrics.NewDistribution([]float64{ttft, ttft, ttft, ttft}),
		InterTokenLatency:     metrics.NewDistribution([]float64{5e6, 5e6, 5e6, 5e6}),
		OutputSequenceLength:  metrics.NewDistribution([]float64{10, 10, 10, 10}),
		OutputTokenThroughput: 1000, RequestThroughput: 10, RequestGoodput: &goodput,
		RequestCount: 4, Completed: 4, Failed: 1, ErrorRate: 0.2, Duration: 400e6,
		Errors: []metrics.ErrorCount{{Class: "http", Status: 500, Message: "boom", Count: 1}},
	}
}

// A point without an outcome (it could not run) has every metric None.
func TestPointWithoutOutcome(t *testing.T) {
	p := newPointValue(&plan.Experiment{}, &runtime.PointResult{Params: plan.Params{"concurrency": 1}})
	for _, name := range []string{"ttft", "output_token_throughput", "error_rate", "errors", "request_goodput"} {
		if v, _ := p.Attr(name); v.String() != "None" {
			t.Errorf("%s = %v, want None", name, v)
		}
	}
}

// An open-loop point has the latencies from the schedule as ms stats:
// TTFT from the schedule 2 and 4 ms (avg 3), request latency 10 and 20 ms
// (max 20).
func TestPointFromSchedule(t *testing.T) {
	s := metrics.Summary{
		TTFTFromSchedule:           metrics.NewDistribution([]float64{2e6, 4e6}),
		RequestLatencyFromSchedule: metrics.NewDistribution([]float64{10e6, 20e6}),
	}
	p := newPointValue(&plan.Experiment{}, &runtime.PointResult{Params: plan.Params{"rate": 1},
		Outcome: &runtime.Outcome{Summary: s}})
	for _, c := range []struct {
		metric, stat string
		want         string
	}{
		{"ttft_from_schedule", "avg", "3.0"},
		{"request_latency_from_schedule", "max", "20.0"},
	} {
		v, err := p.Attr(c.metric)
		if err != nil {
			t.Fatal(err)
		}
		stats, ok := v.(*statsValue)
		if !ok {
			t.Fatalf("%s = %v, want stats", c.metric, v)
		}
		got, err := stats.Attr(c.stat)
		if err != nil || got.String() != c.want {
			t.Errorf("%s.%s = %v, %v; want %s", c.metric, c.stat, got, err, c.want)
		}
	}
}

// check() reads a ratio as a bare number in a gate is read: from 0 to 1.
// kv_cache_usage and gpu_utilization were percentages (50.0) in check()
// while the gate "kv_cache_usage < 0.6" and p.error_rate took 0.5, so one
// scenario compared the same quantity in two units.
func TestCheckReadsRatiosAsGatesDo(t *testing.T) {
	tel := &runtime.PointTelemetry{Summary: metrics.TelemetrySummary{
		Utilization: metrics.NewDistribution([]float64{40, 60}),
		Power:       metrics.NewDistribution([]float64{300, 500}),
		Server:      metrics.ServerTelemetry{KVCacheUsage: metrics.NewDistribution([]float64{25, 75})},
	}}
	s := summaryWith(5e6)
	p := newPointValue(&plan.Experiment{}, &runtime.PointResult{Params: plan.Params{"concurrency": 1},
		Outcome: &runtime.Outcome{Summary: s, Telemetry: tel}})
	for name, want := range map[string]string{"kv_cache_usage": "0.5", "gpu_utilization": "0.5", "gpu_power": "400.0",
		"error_rate": "0.2", "duration": "400.0", "completed": "4", "client_limited": "None"} {
		v, err := p.Attr(name)
		if err != nil || fmt.Sprint(v) != want {
			t.Errorf("p.%s = %v (%v), want %s", name, v, err, want)
		}
	}
	for _, gate := range []string{"kv_cache_usage < 0.6", "gpu_utilization.avg < 0.6"} {
		g, err := metrics.ParseGate(gate)
		if err != nil {
			t.Fatal(err)
		}
		v, err := g.MeasureTelemetry(&tel.Summary)
		if err != nil || v != 0.5 {
			t.Errorf("%s measures %v (%v), want the 0.5 check() reads", gate, v, err)
		}
	}
}

// A point's attributes are its parameters, its gates and errors, and one
// attribute per catalogue metric: check() cannot name a metric the
// catalogue lacks, and sees every one it has.
func TestPointAttrsNameCatalogueMetrics(t *testing.T) {
	s := summaryWith(5e6)
	p := newPointValue(&plan.Experiment{}, &runtime.PointResult{Params: plan.Params{"concurrency": 1},
		Outcome: &runtime.Outcome{Summary: s}})
	notMetrics := map[string]bool{"label": true, "concurrency": true, "rate": true, "input_tokens": true,
		"output_tokens": true, "passed": true, "gates": true, "components": true, "stages": true, "errors": true}
	for _, name := range p.AttrNames() {
		if _, ok := metrics.Lookup(name); !ok && !notMetrics[name] {
			t.Errorf("point attribute %q is no catalogue metric", name)
		}
	}
	for _, m := range metrics.Catalogue() {
		if v, err := p.Attr(m.Name); err != nil || v == nil {
			t.Errorf("point has no attribute %s", m.Name)
		}
	}
}
