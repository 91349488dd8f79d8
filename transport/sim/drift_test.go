package sim

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

// A start with drift multiplies every delay by exactly the factor its
// drift seed draws: the same request on a twin server without drift (same
// Seed, so the same jitter draws) plans each delay that much shorter.
func TestDriftMultipliesEveryDelayByTheStartsFactor(t *testing.T) {
	const sigma, seed = 0.05, 7
	want := DriftFactor(sigma, seed)
	steady := startSim(t, func(c *Config) { c.Jitter, c.Seed = 0.05, 3 })
	drifting := startSim(t, func(c *Config) { c.Jitter, c.Seed, c.Drift, c.DriftSeed = 0.05, 3, sigma, seed })
	if got := drifting.Speed(); got != want {
		t.Fatalf("Speed() = %v, want DriftFactor(%v, %d) = %v", got, sigma, seed, want)
	}
	if steady.Speed() != 1 {
		t.Fatalf("without drift Speed() = %v, want 1", steady.Speed())
	}
	req := genRequest{api: apiChat, promptTokens: 10, outputTokens: 4}
	a := steady.newJob(context.Background(), nil, 1, req, faultNone, false)
	b := drifting.newJob(context.Background(), nil, 1, req, faultNone, false)
	for _, d := range []time.Duration{20 * time.Millisecond, 8 * time.Millisecond, 250 * time.Microsecond} {
		plain, drifted := a.delay(d), b.delay(d)
		if wantD := time.Duration(float64(plain) * want); drifted != wantD {
			t.Errorf("delay(%v): %v with drift, want %v × %v = %v", d, drifted, plain, want, wantD)
		}
	}
	if got, wantStall := scale(time.Second, drifting.Speed()), time.Duration(float64(time.Second)*want); got != wantStall {
		t.Errorf("stall scaled to %v, want %v", got, wantStall)
	}
}

// The factor's log is normal with mean 0 and sd σ. Over 10,000 seeds the
// sample mean of the log has sd σ/√N = 0.0005 at σ = 0.05, so |mean| <
// 0.002 is four of them; the sample sd has sd σ/√(2N) ≈ 0.00035, so it
// lies in [0.0486, 0.0514] by the same margin. The seeds are fixed: the
// test is exact and never flaky.
func TestDriftFactorIsLognormalWithSigma(t *testing.T) {
	const sigma, n = 0.05, 10000
	var sum, sumSq float64
	for seed := int64(1); seed <= n; seed++ {
		l := math.Log(DriftFactor(sigma, seed))
		sum += l
		sumSq += l * l
	}
	mean := sum / n
	sd := math.Sqrt((sumSq - n*mean*mean) / (n - 1))
	if math.Abs(mean) > 0.002 {
		t.Errorf("mean log factor %v, want 0 ± 0.002", mean)
	}
	if sd < 0.0486 || sd > 0.0514 {
		t.Errorf("sd of log factor %v, want %v ± 0.0014", sd, sigma)
	}
	if DriftFactor(0, 42) != 1 {
		t.Error("sigma 0 must give factor 1")
	}
	if DriftFactor(sigma, 42) != DriftFactor(sigma, 42) {
		t.Error("a fixed drift seed must draw the same factor")
	}
}

// DriftSeed 0 draws a fresh seed at every start: that is what drift is for.
func TestDriftSeedZeroDiffersPerStart(t *testing.T) {
	c := Config{Drift: 0.05}
	if a, b := c.driftSeed(), c.driftSeed(); a == 0 || a == b {
		t.Errorf("fresh drift seeds %d and %d, want two different nonzero ones", a, b)
	}
	c.DriftSeed = 9
	if c.driftSeed() != 9 {
		t.Error("a set DriftSeed must be used as given")
	}
}

func TestValidateDrift(t *testing.T) {
	for _, bad := range []float64{-0.05, 1.5, math.NaN(), math.Inf(1)} {
		c := DefaultConfig()
		c.Drift = bad
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "sim: drift must be in [0, 1]") {
			t.Errorf("drift %v: error %v, want one naming drift", bad, err)
		}
	}
}
