package metrics

import (
	"math"
	"testing"
)

// TestCompareWithBaselineKnownAnswers judges constructed repeats whose
// ratio is exact (every candidate repeat is a baseline repeat times f),
// so the verdict follows from where f lies against the gate's factor.
func TestCompareWithBaselineKnownAnswers(t *testing.T) {
	base := []float64{100e6, 104e6, 96e6, 101e6, 99e6}
	cases := []struct {
		gate string
		f    float64
		want Verdict
	}{
		{"ttft.p99 <= baseline * 1.10", 1.5, VerdictRegression},
		{"ttft.p99 <= baseline * 1.10", 1.0, VerdictNoChange},
		{"ttft.p99 <= baseline * 1.10", 0.5, VerdictImprovement},
		{"ttft.p99 <= baseline * 1.10", 1.1, VerdictInconclusive},
		// A factor below 1 demands an improvement.
		{"ttft.p99 <= baseline * 0.9", 1.0, VerdictRegression},
		{"ttft.p99 <= baseline * 0.9", 0.5, VerdictImprovement},
		{"ttft.p99 <= baseline * 0.9", 0.9, VerdictInconclusive},
		// > and >= say higher is better, whatever the metric.
		{"output_token_throughput >= baseline * 0.95", 0.5, VerdictRegression},
		{"output_token_throughput >= baseline * 0.95", 1.0, VerdictNoChange},
		{"output_token_throughput >= baseline * 0.95", 2.0, VerdictImprovement},
		{"osl.avg >= baseline * 0.95", 0.5, VerdictRegression},
	}
	for _, c := range cases {
		g := mustParseGate(t, c.gate)
		got, err := g.CompareWithBaseline(Sample{Repeats: base}, Sample{Repeats: scaled(base, c.f)}, DefaultCompareOptions())
		if err != nil {
			t.Fatalf("%s at ×%v: %v", c.gate, c.f, err)
		}
		if got.Verdict != c.want {
			t.Errorf("%s at ×%v: %s (interval %.3f–%.3f), want %s", c.gate, c.f, got.Verdict, got.Interval.Low, got.Interval.High, c.want)
		}
		if math.Abs(got.Interval.Ratio-c.f) > 1e-9 {
			t.Errorf("%s at ×%v: ratio %v", c.gate, c.f, got.Interval.Ratio)
		}
	}
}

// TestCompareWithBaselineTolerance: the factor is compare's tolerance, so
// a baseline gate and `compare --max-regression` agree on every interval.
func TestCompareWithBaselineTolerance(t *testing.T) {
	base := []float64{100, 103, 97}
	cand := []float64{108, 112, 105}
	g := mustParseGate(t, "itl.p50 <= baseline * 1.05")
	got, err := g.CompareWithBaseline(Sample{Repeats: base}, Sample{Repeats: cand}, DefaultCompareOptions())
	if err != nil {
		t.Fatal(err)
	}
	opt := DefaultCompareOptions()
	opt.Tolerance = 0.05
	want, err := Compare("itl.p50", Sample{Repeats: base}, Sample{Repeats: cand}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got.Verdict != want.Verdict || got.Interval.Low != want.Interval.Low || got.PRegression != want.PRegression {
		t.Errorf("gate %+v, compare %+v", got, want)
	}
	if math.Abs(got.Tolerance-0.05) > 1e-12 {
		t.Errorf("tolerance %v, want 0.05", got.Tolerance)
	}
}

func TestCompareWithBaselineRefusesAbsoluteGates(t *testing.T) {
	g := mustParseGate(t, "ttft.p99 < 500ms")
	if _, err := g.CompareWithBaseline(Sample{Repeats: []float64{1, 2}}, Sample{Repeats: []float64{1, 2}}, DefaultCompareOptions()); err == nil {
		t.Error("an absolute gate was judged against a baseline")
	}
}
