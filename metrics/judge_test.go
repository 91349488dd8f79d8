package metrics

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func baselineGate(t *testing.T, name string, tol float64) Gate {
	t.Helper()
	g, err := BaselineGate(name, tol)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func approx(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// exps is e^x for each x: run values whose logs are the hand-chosen x.
func exps(xs ...float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Exp(x)
	}
	return out
}

// A history of three baseline runs (logs 0, 0.1, −0.1) against one
// candidate run (log 0.2), by hand: df = 2, s² = 0.02/2 = 0.01,
// se = 0.1·√(1/3 + 1) = 0.115470, t(0.95, 2) = 2.919986, so the bounds are
// exp(0.2 ∓ 0.337172) = [0.871821, 1.711159]; the p-value of "worse" is
// P(T₂ ≥ 1.732051) = ½(1 − t/√(t² + 2)) = 0.112702. The change (+22.1%)
// is material at 10% but not real: inconclusive, MDC exp(0.337171) − 1.
func TestJudgeBetweenRunsByHand(t *testing.T) {
	g := baselineGate(t, "itl.p50", 0.10)
	c, err := JudgeSamples(g, Sample{Repeats: exps(0, 0.1, -0.1)}, Sample{Repeats: exps(0.2)}, DefaultJudgeOptions())
	if err != nil {
		t.Fatal(err)
	}
	ri := c.Interval
	if ri.Method != MethodRuns || ri.DF != 2 || !approx(ri.Ratio, math.Exp(0.2), 1e-12) ||
		!approx(ri.Low, 0.871821, 1e-6) || !approx(ri.High, 1.711159, 1e-6) {
		t.Errorf("interval %+v", ri)
	}
	if !approx(c.PRegression, 0.112702, 1e-6) || c.Verdict != VerdictInconclusive || !approx(c.MDC, math.Exp(0.2)/0.871821-1, 1e-6) {
		t.Errorf("p %v, verdict %s, MDC %v", c.PRegression, c.Verdict, c.MDC)
	}
	if c.BaselineRuns != 3 || c.CandidateRuns != 1 {
		t.Errorf("runs %d, %d", c.BaselineRuns, c.CandidateRuns)
	}
}

// Three runs a side a steady 5% apart (logs ±0.01 around each level):
// s = 0.01, se = 0.01·√(2/3) = 0.0081650, t(0.95, 4) = 2.131847, bounds
// exp(ln 1.05 ∓ 0.017407) = [1.031881, 1.068437]. Real, so the tolerance
// decides whether it is material.
func TestJudgeRealAndMaterial(t *testing.T) {
	l := math.Log(1.05)
	base, cand := Sample{Repeats: exps(-0.01, 0, 0.01)}, Sample{Repeats: exps(l-0.01, l, l+0.01)}
	for _, c := range []struct {
		tol  float64
		want Verdict
	}{
		{0.10, VerdictWithinTolerance}, // real, 5% < 10%, and the upper bound 6.8% excludes a 10% regression
		{0.06, VerdictInconclusive},    // 5% < 6%, but 6% is not excluded
		{0.03, VerdictRegression},      // 5% > 3%, and the lower bound 3.2% excludes no change
		{0, VerdictRegression},
	} {
		got, err := JudgeSamples(baselineGate(t, "itl.p50", c.tol), base, cand, DefaultJudgeOptions())
		if err != nil || got.Verdict != c.want || !approx(got.Interval.Low, 1.031881, 1e-6) || !approx(got.Interval.High, 1.068437, 1e-6) {
			t.Errorf("tolerance %v: %s [%v, %v] (%v), want %s", c.tol, got.Verdict, got.Interval.Low, got.Interval.High, err, c.want)
		}
	}
	// Mirrored: the same runs as a throughput that fell 5% (higher is
	// better), and a throughput that rose 5% is an improvement only at
	// tolerance 0 (past 1/limit otherwise).
	for _, c := range []struct {
		tol        float64
		base, cand Sample
		want       Verdict
	}{
		{0.03, cand, base, VerdictRegression},
		{0.10, cand, base, VerdictWithinTolerance},
		{0, base, cand, VerdictImprovement},
		{0.10, base, cand, VerdictWithinTolerance},
	} {
		got, err := JudgeSamples(baselineGate(t, "output_token_throughput", c.tol), c.base, c.cand, DefaultJudgeOptions())
		if err != nil || got.Verdict != c.want {
			t.Errorf("throughput at %v: %s (%v), want %s", c.tol, got.Verdict, err, c.want)
		}
	}
}

// Order statistics of 300 values, by hand: 0.99³⁰⁰ = 0.049041, so the
// p99's upper bound exists at 95% (the largest value, P(B ≤ 299) =
// 0.950959) but not at 96%. Against a candidate at twice every value, the
// ratio's upper bound gives the candidate's upper bound α = 0.049041 (its
// largest, 600) and the baseline's lower bound the remaining 0.000959
// (rank 290, exact binomial): 600/290. Its lower bound is the exceedance
// test inverted: with j = 297, P(Y ≤ k) ≤ 5% up to k = 290 (exact
// hypergeometric sums), so the bound is the 291st candidate value over
// the baseline's 297th, 582/297.
func TestJudgeOrderStatisticsByHand(t *testing.T) {
	base, cand := make([]float64, 300), make([]float64, 300)
	for i := range base {
		base[i], cand[i] = float64(i+1), 2*float64(i+1)
	}
	o := newOrderStatistics(base, 0.99)
	if !approx(o.upperCost(), 0.049041, 1e-6) || o.upper(0.05) != 300 || !math.IsInf(o.upper(0.04), 1) {
		t.Errorf("upper cost %v, upper(5%%) %v, upper(4%%) %v", o.upperCost(), o.upper(0.05), o.upper(0.04))
	}
	ten := newOrderStatistics([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.5)
	if ten.lower(0.05) != 2 || ten.upper(0.05) != 9 { // P(B ≤ 1) = 0.0107 ≤ 5% < P(B ≤ 2); P(B ≤ 7) = 0.9453 < 95% ≤ P(B ≤ 8)
		t.Errorf("median of 1..10: [%v, %v], want [2, 9]", ten.lower(0.05), ten.upper(0.05))
	}
	g := baselineGate(t, "ttft.p99", 0.10)
	c, err := JudgeSamples(g, Sample{Values: base}, Sample{Values: cand}, DefaultJudgeOptions())
	if err != nil || c.Interval.Method != MethodOrderStatistics || !approx(c.Interval.Ratio, 2, 1e-12) ||
		!approx(c.Interval.Low, 582.0/297, 1e-12) || !approx(c.Interval.High, 2*300.0/290, 1e-12) || c.Verdict != VerdictRegression {
		t.Errorf("%+v (%v)", c, err)
	}
	if c.Unbounded != "" {
		t.Errorf("unbounded %q", c.Unbounded)
	}
}

// The p99 of 100 requests has no upper bound at 95% (0.99¹⁰⁰ = 37%): the
// judgment says why, and its exceedance test still calls a doubling real:
// with j = 99, P(Y ≤ k) ≤ 5% up to k = 93, so the lower bound is the 94th
// candidate value over the baseline's 99th, 188/99.
func TestJudgeSaysWhyABoundIsMissing(t *testing.T) {
	base, cand := make([]float64, 100), make([]float64, 100)
	for i := range base {
		base[i], cand[i] = float64(i+1), 2*float64(i+1)
	}
	c, err := JudgeSamples(baselineGate(t, "ttft.p99", 0.10), Sample{Values: base}, Sample{Values: cand}, DefaultJudgeOptions())
	if err != nil || !approx(c.Interval.Low, 188.0/99, 1e-12) || !math.IsInf(c.Interval.High, 1) || c.Verdict != VerdictRegression || c.MDC > 0.2 {
		t.Fatalf("%+v (%v)", c, err)
	}
	for _, want := range []string{"only 1.0 of the candidate's 100 requests lie above p99", "299 would"} {
		if !strings.Contains(c.Unbounded, want) {
			t.Errorf("unbounded %q lacks %q", c.Unbounded, want)
		}
	}
}

// Holm over a family of two, by hand: one-sided p-values 0.03 and 0.04
// are each below α = 5%, but adjusted they are 2·0.03 = 0.06 and
// max(0.06, 0.04) = 0.06: both regressions become inconclusive, and the
// judgment says so. Alone, each would stand.
func TestJudgeFamilySaysWhatHolmChanged(t *testing.T) {
	gate := func(p float64) Judged {
		return Judged{Comparison: Comparison{Direction: LowerIsBetter, Tolerance: 0.10, Interval: RatioInterval{
			Ratio: 1.3, Low: 1.01, High: 1.6,
			pAbove: func(float64) float64 { return p }, pBelow: func(float64) float64 { return 1 }}}}
	}
	js := []Judged{gate(0.03), gate(0.04)}
	decideFamily(js, 0.05)
	for i, j := range js {
		if j.Verdict != VerdictInconclusive || !approx(j.PRegression, 0.06, 1e-12) ||
			j.Adjustment != "regression → inconclusive after Holm over 2 gates" {
			t.Errorf("gate %d: %s, p %v, %q", i, j.Verdict, j.PRegression, j.Adjustment)
		}
	}
	alone := []Judged{gate(0.04)}
	decideFamily(alone, 0.05)
	if alone[0].Verdict != VerdictRegression || alone[0].Adjustment != "" {
		t.Errorf("alone: %s %q", alone[0].Verdict, alone[0].Adjustment)
	}
}

// The rule's promise, on a fixed seed: a history of 5 runs and one
// candidate run whose log values scatter by σ = 2% between runs, judged
// at a 10% tolerance. A true change equal to the tolerance fails about
// half the time, twice the tolerance almost always, none almost never.
func TestJudgeFailsHalfAtTheTolerance(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	g := baselineGate(t, "itl.p50", 0.10)
	rate := func(change float64) float64 {
		failed := 0
		const trials = 2000
		for range trials {
			base := make([]float64, 5)
			for i := range base {
				base[i] = math.Exp(0.02 * rng.NormFloat64())
			}
			cand := []float64{(1 + change) * math.Exp(0.02*rng.NormFloat64())}
			c, err := JudgeSamples(g, Sample{Repeats: base}, Sample{Repeats: cand}, DefaultJudgeOptions())
			if err != nil {
				t.Fatal(err)
			}
			if c.Verdict == VerdictRegression {
				failed++
			}
		}
		return float64(failed) / trials
	}
	none, atTol, twice := rate(0), rate(0.10), rate(0.20)
	t.Logf("fails: no change %.3f, +10%% %.3f, +20%% %.3f", none, atTol, twice)
	if none > 0.01 || atTol < 0.35 || atTol > 0.65 || twice < 0.95 {
		t.Errorf("no change %.3f (want ≤ 1%%), at the tolerance %.3f (35–65%%), twice %.3f (≥ 95%%)", none, atTol, twice)
	}
}

// No whole-distribution shift of 2× passes a gate on a statistic it
// moves, with 300 requests and one run a side.
func TestJudgeCatchesADoubling(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base, cand := make([]float64, 300), make([]float64, 300)
	for i := range base {
		base[i] = 80e6 * math.Exp(0.3*rng.NormFloat64())
		cand[i] = 2 * 80e6 * math.Exp(0.3*rng.NormFloat64())
	}
	for _, name := range []string{"ttft.p50", "ttft.p90", "ttft.p95", "ttft.p99", "ttft.avg", "ttft.max"} {
		c, err := JudgeSamples(baselineGate(t, name, 0.10), Sample{Values: base}, Sample{Values: cand}, DefaultJudgeOptions())
		if err != nil || c.Verdict != VerdictRegression {
			t.Errorf("%s: %s %+.1f%% [%v, %v] (%v)", name, c.Verdict, 100*(c.Interval.Ratio-1), c.Interval.Low, c.Interval.High, err)
		}
	}
}

// The exceedance test by hand: baseline {1, 2, 3}, median order
// statistic j = ⌈0.5·3⌉ = 2 (the value 2); with n₂ = 2 candidate values,
// P(Y = y) = C(1 + y, y)·C(3 − y, 2 − y)/C(5, 2) = 3/10, 4/10, 3/10 for
// y = 0, 1, 2 candidate values below it.
func TestExceedanceByHand(t *testing.T) {
	base := []float64{1, 2, 3}
	for _, c := range []struct {
		cand []float64
		want float64
	}{{[]float64{10, 20}, 0.3}, {[]float64{1.5, 20}, 0.7}, {[]float64{0.5, 1.5}, 1}} {
		if got := exceedance(base, c.cand, 0.5, 1, true); !approx(got, c.want, 1e-12) {
			t.Errorf("%v: p = %v, want %v", c.cand, got, c.want)
		}
	}
	// "Below": as few candidate values at or above 2·x as {10, 20} has
	// below it, mirrored: P(Y ≥ 2) = 0.3 for {0.5, 1.5}.
	if got := exceedance(base, []float64{0.5, 1.5}, 0.5, 1, false); !approx(got, 0.3, 1e-12) {
		t.Errorf("below: p = %v, want 0.3", got)
	}
}

// Identical servers, one run of 300 a side: the tail test's false alarms
// stay within its level (fixed seed, 400 pairs, p99 at tolerance 0).
func TestExceedanceKeepsItsLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	g := baselineGate(t, "ttft.p99", 0)
	alarms := 0
	for range 400 {
		base, cand := make([]float64, 300), make([]float64, 300)
		for i := range base {
			base[i], cand[i] = math.Exp(0.3*rng.NormFloat64()), math.Exp(0.3*rng.NormFloat64())
		}
		c, err := JudgeSamples(g, Sample{Values: base}, Sample{Values: cand}, DefaultJudgeOptions())
		if err != nil {
			t.Fatal(err)
		}
		if c.Verdict == VerdictRegression {
			alarms++
		}
	}
	t.Logf("%d of 400 identical pairs called a regression", alarms)
	if alarms > 34 { // 5% level: 20 expected, 34 beyond its binomial 99.9% range
		t.Errorf("%d of 400 identical pairs called a regression at 5%%", alarms)
	}
}

// A baseline history's spread is the noise a candidate is judged
// against: the same candidate run, 15% slower than the history's
// centre, is a regression against five steady runs (±1%) and
// inconclusive against five that scatter by ±10%, whose minimum
// detectable change is far wider.
func TestJudgeHistoryNoiseWidensTheJudgment(t *testing.T) {
	g := baselineGate(t, "itl.p50", 0.10)
	cand := Sample{Repeats: exps(math.Log(1.15))}
	steady := Sample{Repeats: exps(-0.01, -0.005, 0, 0.005, 0.01)}
	noisy := Sample{Repeats: exps(-0.1, -0.05, 0, 0.05, 0.1)}
	s, err := JudgeSamples(g, steady, cand, DefaultJudgeOptions())
	if err != nil {
		t.Fatal(err)
	}
	n, err := JudgeSamples(g, noisy, cand, DefaultJudgeOptions())
	if err != nil {
		t.Fatal(err)
	}
	if s.Verdict != VerdictRegression || n.Verdict != VerdictInconclusive || !(n.MDC > 5*s.MDC) {
		t.Errorf("steady history: %s (MDC %.3f); noisy: %s (MDC %.3f)", s.Verdict, s.MDC, n.Verdict, n.MDC)
	}
	// By hand for the steady one: Σx² = 2·(0.01² + 0.005²) = 0.00025 over
	// df = 4 gives s = 0.0079057, se = s·√(1/5 + 1) = 0.0086603, and
	// MDC = exp(2.131847·se) − 1 = 0.018634.
	if !approx(s.MDC, 0.018634, 1e-6) {
		t.Errorf("steady MDC %.6f, want 0.018634", s.MDC)
	}
}

// Large runs: 100,000 values a side, the candidate the baseline's own
// values, is no change (the median's exceedance p-value is about ½, not
// an underflow to 0).
func TestExceedanceOfLargeRuns(t *testing.T) {
	base := make([]float64, 100000)
	for i := range base {
		base[i] = float64(i + 1)
	}
	if p := exceedance(base, base, 0.5, 1, true); !(p > 0.4 && p < 0.6) {
		t.Errorf("p = %v, want about ½", p)
	}
}

// Identical values on both sides, ties and all (a simulator's constant
// gaps), are no change: a tie never counts for a claim.
func TestJudgeTiesAreNoChange(t *testing.T) {
	same := make([]float64, 300)
	for i := range same {
		same[i] = 10e6
	}
	for _, name := range []string{"itl.p50", "itl.p99", "itl.avg"} {
		c, err := JudgeSamples(baselineGate(t, name, 0.10), Sample{Values: same}, Sample{Values: same}, DefaultJudgeOptions())
		if err != nil || c.Verdict != VerdictNoChange {
			t.Errorf("%s: %s (%v)", name, c.Verdict, err)
		}
	}
}

// Power before sending, by hand: two baseline runs (logs 0 and ln 1.5)
// against one planned candidate run: s = ln 1.5/√2 = 0.286710, df = 1,
// se = s·√(1/2 + 1) = 0.351145, t(0.95, 1) = 6.313752: a throughput
// (higher is better) must fall by 1 − exp(−2.217044) = 89.1% to be seen.
func TestPlannedMDCByHand(t *testing.T) {
	g := baselineGate(t, "request_throughput", 0.10)
	runs := []RunData{{Summary: &Summary{RequestThroughput: 10}}, {Summary: &Summary{RequestThroughput: 15}}}
	mdc, err := g.PlannedMDC(runs, 1, DefaultJudgeOptions())
	if err != nil || !approx(mdc, 1-math.Exp(-2.217044), 1e-5) {
		t.Errorf("MDC %v (%v)", mdc, err)
	}
}
