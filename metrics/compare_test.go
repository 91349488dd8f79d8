package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// ar1Lognormal draws n values exp(mu + z_t) with z an AR(1) series,
// z_t = phi·z_{t−1} + √(1−phi²)·sigma·e_t, started in its stationary
// distribution: lognormal values with lag-1 log autocorrelation phi.
func ar1Lognormal(rng *rand.Rand, n int, mu, sigma, phi float64) []float64 {
	out := make([]float64, n)
	z := rng.NormFloat64() * sigma
	innovation := math.Sqrt(1-phi*phi) * sigma
	for i := range out {
		out[i] = math.Exp(mu + z)
		z = phi*z + innovation*rng.NormFloat64()
	}
	return out
}

func scaled(values []float64, f float64) []float64 {
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = v * f
	}
	return out
}

func TestMetricDirection(t *testing.T) {
	for name, want := range map[string]Direction{
		"ttft.p99": LowerIsBetter, "itl.p50": LowerIsBetter, "request_latency.p99": LowerIsBetter,
		"time_to_first_token.avg": LowerIsBetter, "itl": LowerIsBetter, "error_rate": LowerIsBetter,
		"energy_per_token": LowerIsBetter, "cost_per_mtok": LowerIsBetter,
		"output_token_throughput": HigherIsBetter, "request_throughput": HigherIsBetter,
		"request_goodput": HigherIsBetter, "output_token_throughput_per_user.p50": HigherIsBetter,
	} {
		got, err := MetricDirection(name)
		if err != nil || got != want {
			t.Errorf("MetricDirection(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	for _, name := range []string{"osl", "isl.p50", "gpu_utilization", "nonsense.p99"} {
		if _, err := MetricDirection(name); err == nil {
			t.Errorf("MetricDirection(%q): want an error", name)
		}
	}
}

func TestJudgeBoundaries(t *testing.T) {
	for _, tc := range []struct {
		dir     Direction
		tol     float64
		lo, hi  float64
		verdict Verdict
	}{
		{LowerIsBetter, 0.10, 1.11, 1.30, VerdictRegression},
		{LowerIsBetter, 0.10, 1.10, 1.30, VerdictInconclusive}, // lo at the limit is not beyond it
		{LowerIsBetter, 0.10, 0.95, 1.05, VerdictNoChange},
		{LowerIsBetter, 0.10, 1.02, 1.10, VerdictNoChange}, // confidently worse, but within tolerance
		{LowerIsBetter, 0.10, 0.80, 0.99, VerdictImprovement},
		{LowerIsBetter, 0.10, 0.90, 1.20, VerdictInconclusive},
		{LowerIsBetter, 0, 0.98, 1.02, VerdictInconclusive}, // tol 0: containing 1 cannot decide
		{LowerIsBetter, 0, 1.01, 1.02, VerdictRegression},
		{HigherIsBetter, 0.10, 0.70, 0.89, VerdictRegression},
		{HigherIsBetter, 0.10, 0.90, 0.98, VerdictNoChange}, // at exactly 1 − tol: within tolerance
		{HigherIsBetter, 0.10, 1.01, 1.20, VerdictImprovement},
		{HigherIsBetter, 0.10, 0.85, 1.05, VerdictInconclusive},
		{LowerIsBetter, 0.10, math.NaN(), 1, VerdictInconclusive},
	} {
		if got := Judge(tc.dir, tc.tol, tc.lo, tc.hi); got != tc.verdict {
			t.Errorf("Judge(%v, tol %v, [%v, %v]) = %q, want %q", tc.dir, tc.tol, tc.lo, tc.hi, got, tc.verdict)
		}
	}
}

// TestCompareBootstrapKnownAnswers compares single runs whose answer is
// known by construction: the candidate is the baseline scaled by a
// factor, so the ratio of any percentile or mean is that factor exactly.
func TestCompareBootstrapKnownAnswers(t *testing.T) {
	tight := ar1Lognormal(rand.New(rand.NewPCG(7, 7)), 3000, math.Log(100e6), 0.1, 0)
	noisy := ar1Lognormal(rand.New(rand.NewPCG(8, 8)), 300, math.Log(100e6), 0.8, 0.5)
	for _, tc := range []struct {
		name    string
		metric  string
		base    []float64
		factor  float64
		tol     float64
		verdict Verdict
	}{
		{"identical", "ttft.p99", tight, 1, 0.10, VerdictNoChange},
		{"identical at tol 0", "ttft.p50", tight, 1, 0, VerdictInconclusive},
		{"15% slower at tol 10%", "itl.p50", tight, 1.15, 0.10, VerdictRegression},
		{"15% slower at tol 20%", "itl.p50", tight, 1.15, 0.20, VerdictNoChange},
		{"15% slower, noisy, at tol 10%", "request_latency.p99", noisy, 1.15, 0.10, VerdictInconclusive},
		{"15% faster", "ttft.avg", tight, 1 / 1.15, 0.10, VerdictImprovement},
		{"throughput 15% higher", "output_token_throughput", tight, 1.15, 0.10, VerdictImprovement},
		{"throughput 15% lower at tol 10%", "output_token_throughput", tight, 0.85, 0.10, VerdictRegression},
		{"throughput 5% lower at tol 10%", "request_throughput", tight, 0.95, 0.10, VerdictNoChange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := DefaultCompareOptions()
			opt.Tolerance = tc.tol
			c, err := Compare(tc.metric, Sample{Values: tc.base}, Sample{Values: scaled(tc.base, tc.factor)}, opt)
			if err != nil {
				t.Fatal(err)
			}
			ri := c.Interval
			if math.Abs(ri.Ratio-tc.factor) > 1e-12 {
				t.Errorf("ratio %v, want %v", ri.Ratio, tc.factor)
			}
			if !(ri.Low <= ri.Ratio && ri.Ratio <= ri.High) || ri.Method != MethodBlockBootstrap {
				t.Errorf("interval [%v, %v] (%s) does not hold the ratio %v", ri.Low, ri.High, ri.Method, ri.Ratio)
			}
			if c.Verdict != tc.verdict {
				t.Errorf("verdict %q, want %q (interval [%.4f, %.4f])", c.Verdict, tc.verdict, ri.Low, ri.High)
			}
			if (c.Verdict == VerdictRegression) != (c.PRegression <= 0.05) ||
				(c.Verdict == VerdictImprovement) != (c.PImprovement <= 0.05) {
				t.Errorf("verdict %q but PRegression %v, PImprovement %v", c.Verdict, c.PRegression, c.PImprovement)
			}
		})
	}
}

func TestCompareRefusesBadInput(t *testing.T) {
	values := Sample{Values: []float64{1, 2, 3}}
	for _, tc := range []struct {
		name   string
		metric string
		base   Sample
		tol    float64
	}{
		{"no direction", "osl.p50", values, 0.1},
		{"unknown statistic", "ttft.p999x", values, 0.1},
		{"negative tolerance", "ttft.p99", values, -0.1},
		{"tolerance of 100%", "output_token_throughput", values, 1},
		{"one side empty", "ttft.p99", Sample{}, 0.1},
	} {
		opt := DefaultCompareOptions()
		opt.Tolerance = tc.tol
		if _, err := Compare(tc.metric, tc.base, values, opt); err == nil {
			t.Errorf("%s: want an error", tc.name)
		}
	}
}

// TestWelchRatioHandExample checks Welch's interval against numbers
// computed by hand. Baseline logs {0, 0.1, 0.2}, candidate logs
// {0.2, 0.3, 0.4}: d = 0.3 − 0.1 = 0.2; s₁² = s₂² = (0.01+0+0.01)/2 = 0.01;
// se = √(0.01/3 + 0.01/3) = 0.0816497; df = (0.02/3)² / (2·(0.01/3)²/2) = 4;
// t(0.975, 4) = 2.776445; half = 0.226696; ratio = e^0.2 = 1.221403,
// interval [e^−0.026696, e^0.426696] = [0.973657, 1.532186].
func TestWelchRatioHandExample(t *testing.T) {
	base := []float64{1, math.Exp(0.1), math.Exp(0.2)}
	cand := []float64{math.Exp(0.2), math.Exp(0.3), math.Exp(0.4)}
	ri, err := WelchRatio(base, cand, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"df", ri.DF, 4}, {"ratio", ri.Ratio, 1.221403}, {"low", ri.Low, 0.973657}, {"high", ri.High, 1.532186},
	} {
		if math.Abs(c.got-c.want) > 1e-6 {
			t.Errorf("%s = %.7f, want %.6f", c.name, c.got, c.want)
		}
	}
	// The interval's ends are where the doubled one-sided p-values are 0.05.
	if p := ri.PAbove(ri.Low); math.Abs(p-0.05) > 1e-9 {
		t.Errorf("PAbove(low) = %v, want 0.05", p)
	}
	if p := ri.PBelow(ri.High); math.Abs(p-0.05) > 1e-9 {
		t.Errorf("PBelow(high) = %v, want 0.05", p)
	}
	if p := ri.PAbove(ri.Ratio); math.Abs(p-1) > 1e-12 {
		t.Errorf("PAbove(ratio) = %v, want 1", p)
	}
}

// TestCompareWithRepeats: every repeat of the candidate is the
// baseline's × 1.15, so the log differences are exactly ln 1.15 and the
// interval is the baseline's spread around it.
func TestCompareWithRepeats(t *testing.T) {
	base := []float64{100, 102, 98, 101, 99}
	for _, tc := range []struct {
		name    string
		metric  string
		factor  float64
		tol     float64
		verdict Verdict
	}{
		{"identical", "ttft.p99", 1, 0.10, VerdictNoChange},
		{"15% slower at tol 10%", "itl.p99", 1.15, 0.10, VerdictRegression},
		{"15% slower at tol 20%", "itl.p99", 1.15, 0.20, VerdictNoChange},
		{"15% slower at tol 14%", "itl.p99", 1.15, 0.14, VerdictInconclusive},
		{"throughput 15% higher", "output_token_throughput", 1.15, 0.10, VerdictImprovement},
		{"throughput 15% lower", "output_token_throughput", 0.85, 0.10, VerdictRegression},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := DefaultCompareOptions()
			opt.Tolerance = tc.tol
			c, err := Compare(tc.metric, Sample{Repeats: base}, Sample{Repeats: scaled(base, tc.factor)}, opt)
			if err != nil {
				t.Fatal(err)
			}
			if c.Interval.Method != MethodWelch || math.Abs(c.Interval.Ratio-tc.factor) > 1e-12 {
				t.Errorf("%s ratio %v, want welch %v", c.Interval.Method, c.Interval.Ratio, tc.factor)
			}
			if c.Verdict != tc.verdict {
				t.Errorf("verdict %q, want %q (interval [%.4f, %.4f])", c.Verdict, tc.verdict, c.Interval.Low, c.Interval.High)
			}
			if (c.Verdict == VerdictRegression) != (c.PRegression <= 0.05) {
				t.Errorf("verdict %q but PRegression %v", c.Verdict, c.PRegression)
			}
			if (c.Verdict == VerdictImprovement) != (c.PImprovement <= 0.05) {
				t.Errorf("verdict %q but PImprovement %v", c.Verdict, c.PImprovement)
			}
		})
	}
}

func TestCompareZeroErrorRates(t *testing.T) {
	opt := DefaultCompareOptions()
	c, err := Compare("error_rate", Sample{Repeats: []float64{0, 0, 0}}, Sample{Repeats: []float64{0, 0}}, opt)
	if err != nil || c.Interval.Ratio != 1 || c.Verdict != VerdictNoChange {
		t.Errorf("all-zero repeats: %+v, %v; want ratio 1, no significant change", c, err)
	}
	// A zero among the repeats has no log: the per-request indicators are used.
	ok := make([]float64, 1000)
	c, err = Compare("error_rate", Sample{Repeats: []float64{0, 0.001}, Values: ok}, Sample{Repeats: []float64{0, 0}, Values: ok}, opt)
	if err != nil || c.Interval.Method != MethodBlockBootstrap || c.Interval.Ratio != 1 {
		t.Errorf("zero repeat: %+v, %v; want the bootstrap's ratio 1", c.Interval, err)
	}
}

// TestHolmAdjustHandExample: p = {0.01, 0.04, 0.03, 0.005}, m = 4. Sorted:
// 0.005·4 = 0.02; 0.01·3 = 0.03; 0.03·2 = 0.06; 0.04·1 = 0.04 → max with
// 0.06 = 0.06. In the original order {0.03, 0.06, 0.06, 0.02}: at α = 0.05
// the first and last are rejected, though 0.04 and 0.03 are below α alone.
func TestHolmAdjustHandExample(t *testing.T) {
	got := HolmAdjust([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("HolmAdjust = %v, want %v", got, want)
			break
		}
	}
	if got := HolmAdjust([]float64{0.6, math.NaN()}); got[0] != 1 || got[1] != 1 {
		t.Errorf("HolmAdjust with NaN = %v, want [1 1]", got)
	}
}

func TestJudgeFamilyDowngrades(t *testing.T) {
	cs := []Comparison{
		{Metric: "ttft.p99", Verdict: VerdictRegression, PRegression: 0.001, PImprovement: 1e-9},
		{Metric: "itl.p99", Verdict: VerdictRegression, PRegression: 0.03, PImprovement: 1e-6},
		{Metric: "output_token_throughput", Verdict: VerdictImprovement, PRegression: 1e-9, PImprovement: 0.04},
		{Metric: "error_rate", Verdict: VerdictNoChange, PRegression: 0.5, PImprovement: 0.5},
	}
	want := []Verdict{VerdictRegression, VerdictInconclusive, VerdictNoChange, VerdictNoChange}
	for i, f := range JudgeFamily(cs, 0.95) {
		if f.Verdict != want[i] {
			t.Errorf("%s: %q (Holm p %v / %v), want %q", f.Metric, f.Verdict, f.HolmPRegression, f.HolmPImprovement, want[i])
		}
	}
}

func TestBootstrapReproducible(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := ar1Lognormal(rng, 400, 0, 0.5, 0.5), ar1Lognormal(rng, 400, 0, 0.5, 0.5)
	opt := BootstrapOptions{Resamples: 300, Seed: 42}
	first, _ := BootstrapRatio(a, b, "p99", opt)
	again, _ := BootstrapRatio(a, b, "p99", opt)
	if first.Low != again.Low || first.High != again.High || !slices.Equal(first.sortedRatios, again.sortedRatios) {
		t.Errorf("same seed gave [%v, %v] then [%v, %v]", first.Low, first.High, again.Low, again.High)
	}
	opt.Seed = 43
	other, _ := BootstrapRatio(a, b, "p99", opt)
	if slices.Equal(first.sortedRatios, other.sortedRatios) {
		t.Error("another seed gave the same resamples")
	}
}

// TestBlockBootstrapWiderOnAutocorrelated: on AR(1) data with φ = 0.8 the
// variance of a mean is (1+φ)/(1−φ) = 9 times what independence says, so
// an interval from blocks must be clearly wider than the iid one.
func TestBlockBootstrapWiderOnAutocorrelated(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a, b := ar1Lognormal(rng, 500, 0, 0.3, 0.8), ar1Lognormal(rng, 500, 0, 0.3, 0.8)
	for _, stat := range []string{"avg", "p50"} {
		block, _ := BootstrapRatio(a, b, stat, BootstrapOptions{Resamples: 1000, Seed: 1})
		iid, _ := BootstrapRatio(a, b, stat, BootstrapOptions{Resamples: 1000, Seed: 1, BlockLength: 1})
		widthRatio := (block.High - block.Low) / (iid.High - iid.Low)
		t.Logf("%s: block lengths %v, width ratio block/iid %.2f", stat, block.BlockLengths, widthRatio)
		if widthRatio <= 1.2 {
			t.Errorf("%s: block interval only %.2f× the iid one, want > 1.2", stat, widthRatio)
		}
	}
}

func TestBlockLengthRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	if got := BlockLength(ar1Lognormal(rng, 1000, 0, 1, 0)); got != 10 {
		t.Errorf("independent n=1000: L = %d, want ⌈1000^(1/3)⌉ = 10", got)
	}
	// ρ = 0.8: (750)^(1/3)·(1.6/0.36)^(2/3) = 9.09·2.70 ≈ 24.5.
	if got := BlockLength(ar1Lognormal(rng, 500, 0, 0.01, 0.8)); got < 18 || got > 32 {
		t.Errorf("AR(1) 0.8 n=500: L = %d, want about 25", got)
	}
	if got := BlockLength([]float64{1, 2, 3}); got != 1 {
		t.Errorf("3 values: L = %d, want 1", got)
	}
}

func TestSelectPercentileMatchesNumpy(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 2, 31, 33, 100, 501, 2000} {
		values := make([]float64, n)
		for i := range values {
			values[i] = math.Round(rng.ExpFloat64() * 50) // ties included
		}
		sorted := slices.Sorted(slices.Values(values))
		for _, p := range []float64{0, 1, 25, 50, 90, 99, 99.9, 100} {
			if got, want := selectPercentile(slices.Clone(values), p), numpyPercentile(sorted, p); got != want {
				t.Errorf("n=%d p%v: select %v, numpy %v", n, p, got, want)
			}
		}
	}
}

func TestWindowRates(t *testing.T) {
	// 2.5 s run in 1 s windows: the half window at the end is dropped.
	times := []int64{0.2e9, 0.9e9, 1.5e9, 2.2e9}
	tokens := []float64{10, 20, 5, 100}
	got := WindowRates(times, tokens, 0, 2.5e9, 1e9)
	if want := []float64{30, 5}; !slices.Equal(got, want) {
		t.Errorf("WindowRates = %v, want %v", got, want)
	}
}
