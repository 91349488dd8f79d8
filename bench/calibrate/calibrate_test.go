package main

import (
	"math"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

func metricsInterval(ratio, lo, hi float64) metrics.RatioInterval {
	return metrics.RatioInterval{Ratio: ratio, Low: lo, High: hi}
}

// TestWilson checks the interval against values computed by hand from
// center = (p + z²/2n)/(1 + z²/n), half = z/(1 + z²/n)·√(p(1−p)/n + z²/4n²).
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{
		// p = 0.04, z² = 3.8414588, z²/n = 0.0192073: center
		// 0.0496036/1.0192073 = 0.0486688, half 1.9230270 × √0.000216009
		// = 0.0282632.
		{8, 200, 0.0204056, 0.0769321},
		// k = 0: lo 0, hi = (z²/n)/(1 + z²/n) = 0.0188453.
		{0, 200, 0, 0.0188453},
		// k = n mirrors k = 0.
		{200, 200, 1 - 0.0188453, 1},
		// p = 0.5, n = 10: z²/n = 0.3841459, center 0.5, half
		// 1.4160097 × √0.0346036 = 0.2634069.
		{5, 10, 0.2365931, 0.7634069},
	} {
		lo, hi := wilson(c.k, c.n, z95)
		if math.Abs(lo-c.lo) > 1e-6 || math.Abs(hi-c.hi) > 1e-6 {
			t.Errorf("wilson(%d, %d) = %.7f, %.7f, want %.7f, %.7f", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
	if lo, hi := wilson(0, 0, z95); lo != 0 || hi != 1 {
		t.Errorf("wilson(0, 0) = %g, %g, want the whole [0, 1]", lo, hi)
	}
}

func TestFormatting(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{pct(0.05), "5%"}, {pct(0.15), "15%"}, {pct(0.125), "12.5%"}, {tolName(0), "0"}, {tolName(0.1), "10%"},
		{rate(8, 200), "8/200 = 4.0%"}, {rate(0, 0), "–"}, {interval(8, 200), "2.0%–7.7%"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestTables renders hand-filled tallies: 8 false alarms in 200 pairs is
// 4.0%, Wilson 2.0%–7.7% (the interval docs/compare.md quotes for it).
func TestTables(t *testing.T) {
	res := &results{Metrics: []string{"itl.p50", "itl.p99"}, Cells: map[cellKey]*tally{
		{Side: 1, Repeats: 1, Tolerance: 0}: {Pairs: 200, Failed: 8, FailedNoHolm: 20,
			Metric: map[string]int{"itl.p50": 8}, MetricNoHolm: map[string]int{"itl.p50": 15, "itl.p99": 9},
			Methods: map[string]bool{"moving-block-bootstrap": true}},
		{Side: 2, Repeats: 3, Tolerance: 0.1}: {Pairs: 50, Failed: 50, ITL: 49,
			Metric: map[string]int{"itl.p50": 49, "itl.p99": 10},
			Spread: map[string]*spread{"itl.p50": {LogRatio: []float64{math.Log(1.1), math.Log(1.1)}}}},
	}}
	fa := falseAlarmTable(res, "simulator", []int{1, 3}, []float64{0, 0.1})
	wantFA := "| simulator | 1 (bootstrap) | 0 | 200 | 8/200 = 4.0% | 2.0%–7.7% | 20/200 = 10.0% |\n"
	if !strings.HasSuffix(fa, wantFA) || strings.Count(fa, "\n") != 3 {
		t.Errorf("false-alarm table:\n%s\nwant its only row:\n%s", fa, wantFA)
	}
	pw := powerTable(res, []side{{Name: "baseline"}, {Name: "identical"}, {Name: "slower 15%", Slowdown: 0.15}}, []int{1, 3}, []float64{0, 0.1})
	wantPW := "| 15% | +10.0% / – | 3 | 10% | 50 | 49/50 = 98.0% | 10/50 = 20.0% | 49/50 = 98.0% | 89.5%–99.6% | 50/50 = 100.0% |\n"
	if !strings.HasSuffix(pw, wantPW) || strings.Count(pw, "\n") != 3 {
		t.Errorf("power table:\n%s\nwant its only row:\n%s", pw, wantPW)
	}
	am := alarmMetrics(res, []int{1}, []float64{0})
	if want := "- 1 repeats, tolerance 0, 200 pairs: itl.p50 8 (15), itl.p99 0 (9) (methods: moving-block-bootstrap)\n"; !strings.HasSuffix(am, want) {
		t.Errorf("alarm metrics:\n%s\nwant:\n%s", am, want)
	}
}

// TestPlan checks the measuring order and the pairing: with -repeats 1,3
// a round holds three runs per side, three one-repeat pairs and one
// three-repeat pair.
func TestPlan(t *testing.T) {
	p := newPlan(config{Pairs: 7, Repeats: []int{1, 3}, Slowdowns: []float64{0.05}})
	if p.rounds != 3 || p.perSide != 3 || len(p.sides) != 3 || p.total() != 27 {
		t.Fatalf("plan = %+v, want 3 rounds of 3 runs for each of 3 sides", p)
	}
	if got := p.sides[2].Name; got != "slower 5%" {
		t.Errorf("side 2 is %q", got)
	}
	runs := p.runs()
	if r := runs[13]; r.Index != 13 || r.Round != 1 || r.Side != 1 || r.Rep != 1 {
		t.Errorf("run 13 = %+v, want round 1, side 1, repeat 1", r)
	}
	st := &store{Sides: p.sides, PerSide: p.perSide, Runs: make([]storedRun, len(runs))}
	for i := range runs {
		st.Runs[i].Spec = runs[i]
	}
	if got := st.run(1, 1, 1).Spec.Index; got != 13 {
		t.Errorf("store.run(1, 1, 1) is run %d, want 13", got)
	}
	if g1, g3 := p.groups(1), p.groups(3); len(g1) != 3 || g1[2] != [2]int{2, 3} || len(g3) != 1 || g3[0] != [2]int{0, 3} {
		t.Errorf("groups: 1 repeat %v, 3 repeats %v", g1, g3)
	}
	if g := newPlan(config{Pairs: 4, Repeats: []int{2, 3}}).groups(2); len(g) != 1 {
		t.Errorf("2 repeats out of 3 per side: %v, want one group", g)
	}
}

// TestSpread: ln ratios 0, 0.1, −0.1, 0.2 and an outlier 5 have median
// 0.1, absolute deviations 0.1, 0, 0.2, 0.1, 4.9 with median 0.1, so a
// robust SD of 0.14826 that the outlier does not move; of the intervals
// [e^(r−0.05), e^(r+0.05)] only the one around r = 0 contains 1.
func TestSpread(t *testing.T) {
	var s spread
	for _, r := range []float64{0, 0.1, -0.1, 0.2, 5} {
		s.add(metricsInterval(math.Exp(r), math.Exp(r-0.05), math.Exp(r+0.05)))
	}
	if got := s.robustSD(); math.Abs(got-0.14826) > 1e-9 {
		t.Errorf("robust SD = %g, want 0.14826", got)
	}
	if s.Covers != 1 {
		t.Errorf("%d intervals contain 1, want 1 (the one around ratio 1)", s.Covers)
	}
	if got := mean(s.LogHalfWidth); math.Abs(got-0.05) > 1e-12 {
		t.Errorf("mean half-width %g, want 0.05", got)
	}
}
