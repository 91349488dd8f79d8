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

func TestBootstrapReproducible(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := ar1Lognormal(rng, 400, 0, 0.5, 0.5), ar1Lognormal(rng, 400, 0, 0.5, 0.5)
	opt := BootstrapOptions{Resamples: 300, Seed: 42}
	first, _ := BootstrapRatio(a, b, "p99", opt, 0.95)
	again, _ := BootstrapRatio(a, b, "p99", opt, 0.95)
	if first.Low != again.Low || first.High != again.High || first.PAbove(1) != again.PAbove(1) {
		t.Errorf("same seed gave [%v, %v] then [%v, %v]", first.Low, first.High, again.Low, again.High)
	}
	opt.Seed = 43
	other, _ := BootstrapRatio(a, b, "p99", opt, 0.95)
	if first.Low == other.Low && first.High == other.High {
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
		block, _ := BootstrapRatio(a, b, stat, BootstrapOptions{Resamples: 1000, Seed: 1}, 0.95)
		iid, _ := BootstrapRatio(a, b, stat, BootstrapOptions{Resamples: 1000, Seed: 1, BlockLength: 1}, 0.95)
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
