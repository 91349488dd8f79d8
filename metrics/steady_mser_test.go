package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMSERTruncation checks MSER-5 on constructed series: the knee of a
// decaying transient, nothing of a stationary series, and a documented
// cut inside the first half for a trend.
func TestMSERTruncation(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	noise := func(n int, f func(i int) float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = f(i) + rng.NormFloat64()
		}
		return v
	}
	cases := []struct {
		name   string
		values []float64
		lo, hi int // accepted truncation range
	}{
		// 100 + 50·e^(−i/20): the transient is below the noise (σ = 1)
		// after ~80 values (50·e^(−4) ≈ 0.9).
		{"decaying transient", noise(1000, func(i int) float64 { return 100 + 50*math.Exp(-float64(i)/20) }), 50, 130},
		// A step: 200 values at +10, then the steady level.
		{"step", noise(1000, func(i int) float64 {
			if i < 200 {
				return 110
			}
			return 100
		}), 200, 210},
		{"stationary", noise(1000, func(int) float64 { return 100 }), 0, 25},
		// A trend never settles: MSER cuts deep into the first half
		// (documented: the CI rule, not MSER, guards against it).
		{"trend", noise(1000, func(i int) float64 { return 100 + float64(i)/10 }), 250, 500},
		{"too short", []float64{9, 1, 1, 1, 1, 1, 1, 1, 1}, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := MSERTruncation(c.values)
			if d < c.lo || d > c.hi || d%MSERBatch != 0 {
				t.Errorf("MSERTruncation = %d, want a multiple of 5 in [%d, %d]", d, c.lo, c.hi)
			}
		})
	}
}

// TestMSERHandComputed: batch means 10, 0, 0, 0 (m = 4): MSER(0) =
// 75/16, MSER(1) = 0/9, MSER(2) = 0/4: the first minimum is d = 1.
func TestMSERHandComputed(t *testing.T) {
	v := []float64{10, 10, 10, 10, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if d := MSERTruncation(v); d != 5 {
		t.Errorf("MSERTruncation = %d, want 5", d)
	}
}
