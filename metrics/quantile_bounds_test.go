package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ranks are 1, 2, ..., n: X₍ₖ₎ = k, so a bound reads as its rank.
func ranks(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i + 1)
	}
	return v
}

// Ranks checked against the binomial sums computed independently
// (Python, math.comb): the median of 100 at 95% is [X₍₄₀₎, X₍₆₁₎]
// (coverage 96.5%); the p99 of 1000 at 97.5% is [X₍₉₈₂₎, X₍₉₉₇₎]; the p99
// of 150 has lower rank 145 and no upper bound (0.99¹⁵⁰ = 22% > 1.25%).
func TestQuantileBoundsKnownRanks(t *testing.T) {
	for _, c := range []struct {
		n        int
		q, level float64
		wantLo   float64
		wantHi   float64
	}{
		{100, 0.5, 0.95, 40, 61},
		{1000, 0.99, 0.975, 982, 997},
		{150, 0.99, 0.975, 145, math.Inf(1)},
	} {
		lo, hi := quantileBounds(ranks(c.n), c.q, c.level)
		if lo != c.wantLo || hi != c.wantHi {
			t.Errorf("n=%d q=%v level=%v: [%v, %v], want [%v, %v]", c.n, c.q, c.level, lo, hi, c.wantLo, c.wantHi)
		}
	}
}

// The p99 of 150 requests cannot be judged: the bootstrap alone would
// call a 20% shift in the tail a regression, the widened interval is
// unbounded and says inconclusive; the p50 of the same runs is judged
// as before.
func TestThinTailIsInconclusive(t *testing.T) {
	base := ranks(150) // then 1001..1150: a spread of 15%
	for i := range base {
		base[i] += 1000
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(base), func(i, j int) { base[i], base[j] = base[j], base[i] })
	cand := scaled(base, 1.2)
	opt := DefaultCompareOptions()
	opt.Tolerance = 0
	p99, err := Compare("ttft.p99", Sample{Values: base}, Sample{Values: cand}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !p99.Interval.TailBounded || !math.IsInf(p99.Interval.High, 1) || p99.Verdict != VerdictInconclusive || p99.PRegression != 1 {
		t.Errorf("p99 of 150: %s [%v, %v] tail-bounded %v, p %v", p99.Verdict, p99.Interval.Low, p99.Interval.High, p99.Interval.TailBounded, p99.PRegression)
	}
	p50, err := Compare("ttft.p50", Sample{Values: base}, Sample{Values: cand}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if p50.Interval.TailBounded || p50.Verdict != VerdictRegression {
		t.Errorf("p50 of 150: %s [%v, %v] tail-bounded %v", p50.Verdict, p50.Interval.Low, p50.Interval.High, p50.Interval.TailBounded)
	}
}
