package plots

import (
	"math"
	"math/rand/v2"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

const msNS = int64(1e6)

// streamingRecords is n streamed requests whose TTFT grows with ISL and
// whose chunk gaps grow with position, plus one failed request with an
// absurd latency that must not appear anywhere.
func streamingRecords(n int) []metrics.Record {
	rng := rand.New(rand.NewPCG(1, 2))
	recs := make([]metrics.Record, 0, n+1)
	for i := range n {
		isl := 100 + rng.IntN(900)
		osl := 20 + rng.IntN(80)
		sent := int64(i) * 10 * msNS
		t := sent + int64(isl)*msNS/10 + int64(rng.ExpFloat64()*20*float64(msNS))
		chunks := []int64{t}
		for k := 1; k < osl; k++ {
			t += 8*msNS + int64(k)*msNS/20 + int64(rng.ExpFloat64()*2*float64(msNS))
			chunks = append(chunks, t)
		}
		recs = append(recs, metrics.Record{ID: int64(i), Sent: sent, Chunks: chunks, Done: t,
			InputTokens: isl, OutputTokens: osl})
	}
	recs = append(recs, metrics.Record{ID: int64(n), Sent: 0, Chunks: []int64{1e12}, Done: 1e12,
		InputTokens: 5000, OutputTokens: 1, Err: &metrics.Failure{Class: metrics.ErrTimeout}})
	return recs
}

// nonStreamingRecords have one chunk each and no token counts.
func nonStreamingRecords(n int) []metrics.Record {
	recs := make([]metrics.Record, n)
	for i := range recs {
		sent := int64(i) * msNS
		recs[i] = metrics.Record{ID: int64(i), Sent: sent, Chunks: []int64{sent + int64(200+i%50)*msNS}}
	}
	return recs
}

// dist is a Distribution with the given p99 in ns.
func dist(p99 float64) *metrics.Distribution {
	return &metrics.Distribution{Count: 100, P50: p99 / 2, P99: p99, Avg: p99 / 2}
}

// sweepResult is a concurrency sweep that saturates around c=32: TTFT
// explodes and throughput flattens. goodput and repeats add what their
// plots need.
func sweepResult(goodput, repeats bool) *runtime.ExperimentResult {
	res := &runtime.ExperimentResult{Experiment: &plan.Experiment{Name: "chat"}}
	for i, c := range []float64{1, 2, 4, 8, 16, 32, 64, 128} {
		thr := 3000 * (1 - math.Exp(-c/16))
		ttft := 60e6 * math.Pow(1.6, float64(i))
		s := metrics.Summary{TimeToFirstToken: dist(ttft), InterTokenLatency: dist(10e6 + c*4e5),
			OutputTokenThroughput: thr, RequestThroughput: thr / 100}
		if goodput {
			g := s.RequestThroughput * math.Min(1, 500e6/ttft)
			s.RequestGoodput = &g
		}
		pr := runtime.PointResult{Params: map[string]float64{metrics.ParamConcurrency: c},
			Outcome: &runtime.Outcome{Summary: s}}
		if repeats {
			pr.RepeatStats = map[string]metrics.RepeatStat{
				"output_token_throughput": metrics.AcrossRepeats([]float64{thr * 0.95, thr, thr * 1.04}),
			}
		}
		res.Points = append(res.Points, pr)
	}
	res.Capacity = runtime.AnalyzeCapacity(res, &runtime.Capacity{Saturation: &runtime.SaturationResult{
		Saturated: true, Point: 5, Reason: "throughput grew < 5%", Source: runtime.SaturationByRule}})
	return res
}

// pointData collects records the way a run does.
func pointData(recs []metrics.Record) *PointData {
	d := NewPointData()
	for i := range recs {
		d.Add(&recs[i])
	}
	return d
}
