package metrics

import (
	"math"
	"testing"
)

// TestPairedRatioByHand checks the paired method against numbers worked
// by hand: d = ln(11/10), ln(24/20), ln(44/40), ln(96/80) = ln 1.1,
// ln 1.2, ln 1.1, ln 1.2; d̄ = ln √1.32, s = 0.0502361 (n − 1), se = s/2,
// df = 3, t(0.95, 3) = 2.3533634; p-values from the closed form of
// Student's t with 3 degrees of freedom.
func TestPairedRatioByHand(t *testing.T) {
	ri, err := ratioBounds("avg", Sample{Repeats: []float64{10, 20, 40, 80}}, Sample{Repeats: []float64{11, 24, 44, 96}},
		JudgeOptions{Confidence: 0.95, Paired: true})
	if err != nil {
		t.Fatal(err)
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %.9g, want %.9g", name, got, want)
		}
	}
	if ri.Method != MethodPairedRounds || ri.DF != 3 {
		t.Fatalf("method %s df %v, want %s df 3", ri.Method, ri.DF, MethodPairedRounds)
	}
	near("ratio", ri.Ratio, 1.1489125293076057)
	near("low", ri.Low, 1.0829665013674095)
	near("high", ri.High, 1.2188742665015952)
	near("P(ratio ≤ 1)", ri.PAbove(1), 0.00583606311451762)
	near("P(ratio ≤ 1.1)", ri.PAbove(1.1), 0.09084505690810457)
	near("baseline", ri.Baseline, 37.5)
	near("candidate", ri.Candidate, 43.75)
}

// TestPairedRatioCancelsDrift: both sides slowed by the same drift over
// the rounds (each round 10% slower than the one before) and the
// candidate 5% slower than the baseline in every round. Paired, the
// drift is gone: the ratio is exactly 1.05 with no width. Unpaired, the
// same numbers are judged between runs and the drift is noise that
// hides the change.
func TestPairedRatioCancelsDrift(t *testing.T) {
	base := []float64{100, 110, 121, 133.1, 146.41, 161.051}
	cand := make([]float64, len(base))
	for i, b := range base {
		cand[i] = b * 1.05
	}
	paired, err := ratioBounds("avg", Sample{Repeats: base}, Sample{Repeats: cand}, JudgeOptions{Paired: true})
	if err != nil {
		t.Fatal(err)
	}
	if paired.Method != MethodPairedRounds || math.Abs(paired.Low-1.05) > 1e-9 || math.Abs(paired.High-1.05) > 1e-9 {
		t.Errorf("paired: %s [%v, %v], want paired-rounds [1.05, 1.05]", paired.Method, paired.Low, paired.High)
	}
	unpaired, err := ratioBounds("avg", Sample{Repeats: base}, Sample{Repeats: cand}, JudgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if unpaired.Method != MethodRuns || unpaired.Low >= 1 {
		t.Errorf("unpaired: %s low %v, want t-between-runs with a lower bound below 1 (the drift hides the change)", unpaired.Method, unpaired.Low)
	}
}

// TestPairedNeedsPairs: rounds that do not pair (unequal counts, or one
// per side) are judged as before.
func TestPairedNeedsPairs(t *testing.T) {
	for _, tc := range []struct {
		base, cand []float64
		want       Method
	}{
		{[]float64{10, 11, 12}, []float64{11, 12}, MethodRuns},
		{[]float64{10}, []float64{11}, ""},
	} {
		ri, err := ratioBounds("avg", Sample{Repeats: tc.base}, Sample{Repeats: tc.cand}, JudgeOptions{Paired: true})
		if tc.want == "" {
			if err == nil {
				t.Errorf("%v vs %v: judged by %s, want no method (nothing to bound with)", tc.base, tc.cand, ri.Method)
			}
			continue
		}
		if err != nil || ri.Method != tc.want {
			t.Errorf("%v vs %v: %s, %v; want %s", tc.base, tc.cand, ri.Method, err, tc.want)
		}
	}
}

// TestPairedVerdictThroughJudge: the one judge calls a regression on
// paired rounds 10% worse beyond a 5% tolerance, and names the method.
func TestPairedVerdictThroughJudge(t *testing.T) {
	g, err := BaselineGate("ttft.avg", 0.05)
	if err != nil {
		t.Fatal(err)
	}
	base := []float64{100, 120, 90, 130, 110, 95, 125, 105}
	cand := make([]float64, len(base))
	for i, b := range base {
		cand[i] = b * (1.10 + 0.01*float64(i%2))
	}
	c, err := JudgeSamples(g, Sample{Repeats: base}, Sample{Repeats: cand}, JudgeOptions{Paired: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Verdict != VerdictRegression || c.Interval.Method != MethodPairedRounds {
		t.Errorf("verdict %s by %s, want regression by paired-rounds", c.Verdict, c.Interval.Method)
	}
}
