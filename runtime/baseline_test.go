package runtime

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// streamed are n requests sent 50 ms apart with lognormal TTFTs (median
// 80 ms, seeded) times scale, and 4 chunks 10 ms apart.
func streamed(n int, seed uint64, scale float64) []metrics.Record {
	rng := rand.New(rand.NewPCG(seed, 7))
	recs := make([]metrics.Record, n)
	for i := range recs {
		sent := int64(i) * 50e6
		ttft := int64(80e6 * scale * (1 + 0.2*rng.NormFloat64()))
		r := metrics.Record{ID: int64(i), Sent: sent, InputTokens: 10, OutputTokens: 4}
		for c := range 4 {
			r.Chunks = append(r.Chunks, sent+ttft+int64(c)*10e6)
		}
		r.Done = r.Chunks[3]
		recs[i] = r
	}
	return recs
}

// outcomeOf is a measured run as the engine leaves it: a summary and the
// series baseline gates read, no records.
func outcomeOf(t *testing.T, recs []metrics.Record, track ...*metrics.Metric) *Outcome {
	t.Helper()
	s, err := metrics.NewSeries(track...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		s.Add(&recs[i])
	}
	return &Outcome{Summary: metrics.Summarize(recs, metrics.Options{}), Series: s}
}

// baselineOf is a baseline of one point (concurrency 4) measured as recs,
// one slice per repeat.
func baselineOf(runs ...[]metrics.Record) *Baseline {
	data := make([]metrics.RunData, len(runs))
	for i, recs := range runs {
		s := metrics.Summarize(recs, metrics.Options{})
		data[i] = metrics.RunData{Summary: &s, Records: recs}
	}
	return &Baseline{Path: "base", Runs: func(p plan.Params, component string) ([]metrics.RunData, error) {
		if p.Label() != "concurrency4" || component != "" {
			return nil, ErrNoBaselinePoint
		}
		return data, nil
	}}
}

func gateExperiment(t *testing.T, gates ...string) *plan.Experiment {
	t.Helper()
	e := &plan.Experiment{Name: "chat"}
	for _, src := range gates {
		g, err := metrics.ParseGate(src)
		if err != nil {
			t.Fatal(err)
		}
		e.Gates = append(e.Gates, g)
	}
	return e
}

// One run per side: a candidate 50% slower in TTFT fails its baseline
// gate, the same server passes it, and the absolute gate beside them
// shows the baseline's value.
func TestBaselineGatesWithoutRepeats(t *testing.T) {
	at := plan.Params{metrics.ParamConcurrency: 4}
	b := baselineOf(streamed(300, 1, 1))
	e := gateExperiment(t, "ttft.p50 <= baseline * 1.10", "ttft.p99 < 1s")
	for _, c := range []struct {
		scale float64
		pass  bool
	}{{1, true}, {1.5, false}} {
		out := outcomeOf(t, streamed(300, 2, c.scale), e.BaselineTrack()...)
		rs := EvaluateGates(e, b, at, out)
		if len(rs) != 2 || rs[0].Comparison == nil || rs[0].Passed != c.pass {
			t.Fatalf("×%v: %+v", c.scale, rs)
		}
		if rs[0].Comparison.Interval.Method != metrics.MethodOrderStatistics || rs[0].Baseline == nil {
			t.Errorf("×%v: %+v", c.scale, rs[0].Comparison)
		}
		if rs[1].Baseline == nil || *rs[1].Baseline <= 0 || rs[1].Comparison != nil || !rs[1].Passed {
			t.Errorf("absolute gate ×%v: %+v", c.scale, rs[1])
		}
	}
}

// With repeats the comparison is Welch's; a candidate exactly at the
// limit is inconclusive: passed with a warning, or failed with
// FailOnInconclusive.
func TestBaselineGatesInconclusive(t *testing.T) {
	at := plan.Params{metrics.ParamConcurrency: 4}
	b := baselineOf(streamed(200, 1, 1), streamed(200, 2, 1.04), streamed(200, 3, 0.96))
	e := gateExperiment(t, "ttft.p50 <= baseline * 1.10")
	outs := []*Outcome{
		outcomeOf(t, streamed(200, 1, 1.1)), outcomeOf(t, streamed(200, 2, 1.1*1.04)), outcomeOf(t, streamed(200, 3, 1.1*0.96)),
	}
	r := EvaluateGates(e, b, at, outs...)[0]
	if r.Comparison == nil || r.Comparison.Verdict != metrics.VerdictInconclusive || !r.Passed ||
		r.Comparison.Interval.Method != metrics.MethodRuns {
		t.Fatalf("%+v %+v", r, r.Comparison)
	}
	b.FailOnInconclusive = true
	if r := EvaluateGates(e, b, at, outs...)[0]; r.Passed {
		t.Errorf("FailOnInconclusive: %+v", r)
	}
}

// A point the baseline lacks fails its baseline gate, or is skipped
// with AllowMissing; no baseline at all skips it.
func TestBaselineGatesMissingPoint(t *testing.T) {
	b := baselineOf(streamed(100, 1, 1))
	e := gateExperiment(t, "ttft.p50 <= baseline * 1.10")
	out := outcomeOf(t, streamed(100, 2, 1), metrics.TTFT)
	at := plan.Params{metrics.ParamConcurrency: 8}
	if r := EvaluateGates(e, b, at, out)[0]; r.Passed || r.Err == nil {
		t.Errorf("missing point: %+v", r)
	}
	b.AllowMissing = true
	if r := EvaluateGates(e, b, at, out)[0]; !r.Passed || !strings.Contains(r.Skipped, "no point concurrency8") {
		t.Errorf("missing point allowed: %+v", r)
	}
	if r := EvaluateGates(e, nil, at, out)[0]; !r.Passed || r.Skipped == "" {
		t.Errorf("no baseline: %+v", r)
	}
}
