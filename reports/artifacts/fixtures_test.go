package artifacts

import (
	"math/rand/v2"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

const msNS = int64(1e6)

// streamed is n streamed chat requests of two dataset components, one
// request per 20 ms, and one that failed: what a point's sink is given.
func streamed(n int) []metrics.Record {
	rng := rand.New(rand.NewPCG(3, uint64(n)))
	recs := make([]metrics.Record, 0, n+1)
	for i := range n {
		comp, isl := "chat", 100+rng.IntN(50)
		if i%3 == 0 {
			comp, isl = "rag", 900+rng.IntN(100)
		}
		sent := int64(i) * 20 * msNS
		t := sent + int64(isl)*msNS/20
		chunks := []int64{t}
		for range 15 + rng.IntN(10) {
			t += int64((4 + rng.ExpFloat64()) * float64(msNS))
			chunks = append(chunks, t)
		}
		recs = append(recs, metrics.Record{ID: int64(i), Component: comp, Sent: sent, Chunks: chunks, Done: t,
			InputTokens: isl, OutputTokens: len(chunks)})
	}
	return append(recs, metrics.Record{ID: int64(n), Component: "chat", Sent: 5, Done: 9,
		Err: &metrics.Failure{Class: metrics.ErrHTTP, Status: 503, Message: "overloaded"}})
}

// experiment is a one-point closed-loop chat experiment named e.
func experiment() *plan.Experiment {
	return &plan.Experiment{Name: "e", Endpoint: plan.Endpoint{URL: "http://127.0.0.1:1", Model: "m", API: transport.Chat, Stream: true},
		Load: plan.Load{Concurrency: 1}, Requests: 8, Seed: 1}
}

// outcome is what a run of the records measured, with each dataset
// component on its own.
func outcome(recs []metrics.Record) *runtime.Outcome {
	out := &runtime.Outcome{Summary: metrics.Summarize(recs, metrics.Options{})}
	for _, name := range []string{"chat", "rag"} {
		var part []metrics.Record
		for _, r := range recs {
			if r.Component == name {
				part = append(part, r)
			}
		}
		out.Components = append(out.Components, runtime.ComponentSummary{Name: name, Summary: metrics.Summarize(part, metrics.Options{})})
	}
	return out
}

// result is experiment e measured at concurrency 1 and 4 (the second
// twice as slow), its gate failing at 4.
func result(t *testing.T) runtime.ExperimentResult {
	t.Helper()
	g, err := metrics.ParseGate("ttft.p99 < 60ms")
	if err != nil {
		t.Fatal(err)
	}
	exp := experiment()
	exp.Gates = []metrics.Gate{g}
	exp.Sweep = &plan.Sweep{Params: []plan.SweepParam{{Name: metrics.ParamConcurrency, Values: []float64{1, 4}}}}
	res := runtime.ExperimentResult{Experiment: exp}
	for i, c := range []float64{1, 4} {
		recs := streamed(30)
		for j := range recs {
			for k := range recs[j].Chunks {
				recs[j].Chunks[k] += int64(i) * 40 * msNS
			}
		}
		out := outcome(recs)
		p99 := out.Summary.TimeToFirstToken.P99
		res.Points = append(res.Points, runtime.PointResult{Params: plan.Params{metrics.ParamConcurrency: c}, Outcome: out,
			Gates: []runtime.GateResult{{Gate: g, Measured: p99, Passed: p99 < g.Value}}})
	}
	res.Capacity = runtime.AnalyzeCapacity(&res, nil)
	return res
}
