package sweep

import (
	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// measured is one constructed point: p99 TTFT and ITL in ms, output
// token and request throughput, goodput (< 0: not measured) and errors.
type measured struct {
	load, ttft, itl, tokens, requests, goodput float64
	failed                                     int
}

func summaryOf(m measured) metrics.Summary {
	s := metrics.Summary{
		TimeToFirstToken:      &metrics.Distribution{Count: 100, Avg: m.ttft * 0.8e6, P50: m.ttft * 0.7e6, P99: m.ttft * 1e6},
		InterTokenLatency:     &metrics.Distribution{Count: 100, Avg: m.itl * 0.9e6, P99: m.itl * 1e6},
		OutputTokenThroughput: m.tokens, RequestThroughput: m.requests,
		Completed: 100 - m.failed, Failed: m.failed, ErrorRate: float64(m.failed) / 100, RequestCount: 100 - m.failed,
	}
	if m.goodput >= 0 {
		g := m.goodput
		s.RequestGoodput = &g
	}
	return s
}

// sweepOf builds the result of a sweep over param, evaluating the
// experiment's gates at every point as the runtime does.
func sweepOf(param string, gates []string, points ...measured) *runtime.ExperimentResult {
	exp := &plan.Experiment{Name: "capacity", Repeats: 1, Endpoint: plan.Endpoint{Stream: true}}
	for _, src := range gates {
		g, err := metrics.ParseGate(src)
		if err != nil {
			panic(err)
		}
		exp.Gates = append(exp.Gates, g)
	}
	values := make([]float64, len(points))
	res := &runtime.ExperimentResult{Experiment: exp}
	for i, m := range points {
		values[i] = m.load
		out := &runtime.Outcome{Counting: runtime.Counting{Mode: runtime.ByUsage}, Summary: summaryOf(m)}
		p := runtime.PointResult{Params: plan.Params{param: m.load},
			Outcome: out, Repeats: []*runtime.Outcome{out}}
		for _, g := range exp.Gates {
			v, err := g.Measure(&out.Summary)
			p.Gates = append(p.Gates, runtime.GateResult{Gate: g, Measured: v, Passed: err == nil && g.Check(v, 0), Err: err})
		}
		res.Points = append(res.Points, p)
	}
	exp.Sweep = &plan.Sweep{Params: []plan.SweepParam{{Name: param, Values: values}}}
	return res
}

// saturating flattens at concurrency 4 (throughput +2.5% to 8) while
// TTFT holds until 8 and blows up at 16.
func saturating() *runtime.ExperimentResult {
	return sweepOf(metrics.ParamConcurrency, []string{"error_rate < 1%", "ttft.p99 < 50ms"},
		measured{1, 10, 5, 100, 1, 1, 0},
		measured{2, 10, 5, 200, 2, 2, 0},
		measured{4, 11, 6, 400, 4, 4, 0},
		measured{8, 30, 8, 410, 4.1, 3, 0},
		measured{16, 60, 9, 415, 4.15, 1.5, 3},
	)
}

// growing never saturates: throughput doubles at every step.
func growing() *runtime.ExperimentResult {
	return sweepOf(metrics.ParamConcurrency, []string{"ttft.p99 < 50ms"},
		measured{1, 10, 5, 100, 1, -1, 0},
		measured{2, 10, 5, 200, 2, -1, 0},
		measured{4, 11, 5, 400, 4, -1, 0},
		measured{8, 12, 5, 800, 8, -1, 0},
	)
}
