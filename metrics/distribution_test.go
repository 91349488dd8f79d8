package metrics

import (
	"math"
	"testing"

	"github.com/montanaflynn/stats"
)

// The foundations.md Q4 cases. rank = p/100·(n−1), value = s[k] + f·(s[k+1]−s[k]),
// taken from the upper end when f ≥ 0.5 (numpy's two-sided form).
var foundationCases = []struct {
	name   string
	values []float64
	// p50, p75, p90, p99
	want [4]float64
}{
	// n=4: ranks 1.5, 2.25, 2.7, 2.97 → 2+0.5, 3+0.25, 4−0.3, 4−0.03 (0.97·1 = 0.97 rounds to 0.9699999999999998 away from 4).
	{"1..4", []float64{1, 2, 3, 4}, [4]float64{2.5, 3.25, 3.7, 3.9699999999999998}},
	// n=5: ranks 2, 3, 3.6, 3.96 → 35, 40, 50−10·0.4 = 46, 50−10·0.04 = 49.6.
	{"15,20,35,40,50", []float64{15, 20, 35, 40, 50}, [4]float64{35, 40, 46, 49.6}},
	// sorted 1,2,3; ranks 1, 1.5, 1.8, 1.98 → 2, 2.5, 2.8, 2.98.
	{"3,1,2", []float64{3, 1, 2}, [4]float64{2, 2.5, 2.8, 2.98}},
	// n=100: ranks 49.5, 74.25, 89.1, 98.01 → 50.5, 75.25, 90.1 (+ rounding of 0.1·89), 99.01.
	{"1..100", seq(1, 100), [4]float64{50.5, 75.25, 90.10000000000001, 99.01}},
}

func seq(lo, hi int) []float64 {
	var x []float64
	for v := lo; v <= hi; v++ {
		x = append(x, float64(v))
	}
	return x
}

func TestPercentileFoundations(t *testing.T) {
	for _, c := range foundationCases {
		t.Run(c.name, func(t *testing.T) {
			d := NewDistribution(c.values)
			same(t, "P50", d.P50, c.want[0])
			same(t, "P75", d.P75, c.want[1])
			same(t, "P90", d.P90, c.want[2])
			same(t, "P99", d.P99, c.want[3])
			// montanaflynn/stats (≥ v0.8.0) agrees on these cases.
			for i, p := range []float64{50, 75, 90, 99} {
				got, err := stats.Percentile(c.values, p)
				if err != nil {
					t.Fatal(err)
				}
				same(t, "stats.Percentile", got, c.want[i])
			}
		})
	}
}

// TestPercentileStatsDivergence pins why llmbench interpolates itself:
// [0,13] at p90 has rank 0.9 (f = 0.9), numpy computes 13 − 13·0.09999999999999998
// = 11.7, montanaflynn/stats 0 + 13·0.9 = 11.700000000000001.
func TestPercentileStatsDivergence(t *testing.T) {
	values := []float64{0, 13}
	same(t, "P90", NewDistribution(values).P90, 11.7)
	got, _ := stats.Percentile(values, 90)
	same(t, "stats.Percentile", got, 11.700000000000001)
}

// TestMeanPairwise pins why the mean is numpy's pairwise sum: with nine
// values numpy keeps eight accumulators, ((1e16+1)+(1+1))+((1+1)+(1+1)) =
// 1e16+6 (1e16+1 ties back to 1e16, the ulp being 2), then +1 ties to
// even 1e16+8; /9 = 1111111111111112. Summing left to right, every +1 ties
// back to 1e16: 1e16/9 = 1111111111111111.1.
func TestMeanPairwise(t *testing.T) {
	values := []float64{1e16, 1, 1, 1, 1, 1, 1, 1, 1}
	same(t, "Avg", NewDistribution(values).Avg, 1111111111111112)
	got, _ := stats.Mean(values)
	same(t, "stats.Mean", got, 1111111111111111.1)
}

func TestDistributionBasics(t *testing.T) {
	cases := []struct {
		name                     string
		values                   []float64
		avg, std, minV, maxV, p1 float64
	}{
		// mean 5; squared deviations 9,1,1,1,0,0,4,16 sum 32; /8 = 4; sqrt = 2.
		// p1: rank 0.07 → 2 + 2·0.07.
		{"textbook std", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, 2, 2, 9, 2.14},
		// mean 2.5; deviations² 2.25+0.25+0.25+2.25 = 5; /4 = 1.25; sqrt(1.25).
		// p1: rank 0.03 → 1 + 0.03.
		{"1..4", []float64{4, 3, 2, 1}, 2.5, math.Sqrt(1.25), 1, 4, 1.03},
		// One value: every statistic is that value, std 0.
		{"single", []float64{7}, 7, 0, 7, 7, 7},
		// Population, not sample: [1,3] has mean 2, std sqrt((1+1)/2) = 1
		// (sample would be 1.414…); p1: rank 0.01 → 1 + 2·0.01.
		{"population", []float64{1, 3}, 2, 1, 1, 3, 1.02},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := NewDistribution(c.values)
			if d.Count != len(c.values) {
				t.Errorf("Count = %d, want %d", d.Count, len(c.values))
			}
			same(t, "Avg", d.Avg, c.avg)
			same(t, "Std", d.Std, c.std)
			same(t, "Min", d.Min, c.minV)
			same(t, "Max", d.Max, c.maxV)
			same(t, "P1", d.P1, c.p1)
		})
	}
	if NewDistribution(nil) != nil || NewDistribution([]float64{}) != nil {
		t.Error("NewDistribution of no values must be nil")
	}
}

func TestNewDistributionKeepsInput(t *testing.T) {
	values := []float64{3, 1, 2}
	NewDistribution(values)
	if values[0] != 3 || values[1] != 1 || values[2] != 2 {
		t.Errorf("input reordered: %v", values)
	}
}

func TestPercentileAnyP(t *testing.T) {
	d := NewDistribution(seq(1, 1000))
	cases := []struct {
		p, want float64
	}{
		{0, 1},      // min
		{100, 1000}, // max
		// rank 0.999·999 = 998.001 → 999 + 0.001 (as 998.001 − 998 in floats).
		{99.9, 999.0010000000001},
		{50, 500.5}, // rank 499.5
		{99, d.P99}, // same path as the fixed field
		{-1, math.NaN()},
		{100.5, math.NaN()},
		{math.NaN(), math.NaN()},
	}
	for _, c := range cases {
		same(t, "Percentile", d.Percentile(c.p), c.want)
	}
	var absent *Distribution
	same(t, "nil Percentile", absent.Percentile(50), math.NaN())
}

// TestPercentileWithoutValues: a Distribution rebuilt from its fields (as
// decoded from JSON) answers the percentiles it has.
func TestPercentileWithoutValues(t *testing.T) {
	d := Distribution{Count: 2, Min: 1, Max: 9, P1: 1.08, P90: 8.2, P99: 8.92}
	same(t, "p0", d.Percentile(0), 1)
	same(t, "p90", d.Percentile(90), 8.2)
	same(t, "p99", d.Percentile(99), 8.92)
	same(t, "p100", d.Percentile(100), 9)
	same(t, "p99.9", d.Percentile(99.9), math.NaN())
}

func TestScaled(t *testing.T) {
	// TTFT of the GenAI-Perf example, [4e6, 5e6] ns: p90 = 5e6 − 1e6·0.1 = 4.9e6 ns,
	// and 4.9e6·1e-6 = 4.8999999999999995, the digits of its JSON.
	ns := NewDistribution([]float64{4e6, 5e6})
	ms := ns.Scaled(1e-6)
	same(t, "P90", ms.P90, 4.8999999999999995)
	same(t, "Avg", ms.Avg, 4.5)
	same(t, "Std", ms.Std, 0.5)
	same(t, "Min", ms.Min, 4)
	same(t, "Max", ms.Max, 5)
	same(t, "P1", ms.P1, 4.01)
	same(t, "Percentile(90)", ms.Percentile(90), ms.P90)
	if ms.Count != 2 {
		t.Errorf("Count = %d, want 2", ms.Count)
	}
	same(t, "original untouched", ns.P90, 4.9e6)
	// Twice scaled: fields and Percentile apply the factors in the same order.
	s := ns.Scaled(1e-6).Scaled(1e3)
	same(t, "twice P90", s.Percentile(90), s.P90)
	same(t, "twice p90 value", s.P90, 4.8999999999999995*1e3)
	var absent *Distribution
	if absent.Scaled(1e-6) != nil {
		t.Error("Scaled of nil must be nil")
	}
}

// FuzzDistribution checks the properties every distribution has: the
// percentiles lie in [min, max] and never decrease with p.
func FuzzDistribution(f *testing.F) {
	f.Add(int64(4e6), int64(5e6), int64(1), int64(7), uint8(4))
	f.Add(int64(0), int64(13), int64(-5), int64(1<<40), uint8(2))
	f.Fuzz(func(t *testing.T, a, b, c, e int64, n uint8) {
		// Integer values up to 2^53, as nanosecond and token values are.
		seed := []int64{a, b, c, e}
		values := make([]float64, int(n)%40+1)
		for i := range values {
			values[i] = float64((seed[i%4] + int64(i)*seed[(i+1)%4]) % (1 << 53))
		}
		d := NewDistribution(values)
		prev := math.Inf(-1)
		for p := 0.0; p <= 100; p += 0.1 {
			v := d.Percentile(p)
			if v < d.Min || v > d.Max || v < prev {
				t.Fatalf("p%.1f = %v: outside [%v, %v] or below the previous %v", p, v, d.Min, d.Max, prev)
			}
			prev = v
		}
	})
}
