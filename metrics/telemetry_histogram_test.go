package metrics

import (
	"math"
	"testing"
)

func TestHistogramQuantile(t *testing.T) {
	inf := math.Inf(+1)
	// 50 observations: 10 ≤ 0.1, 20 in (0.1, 0.2], 15 in (0.2, 0.5], 5 above.
	b := []HistogramBucket{{0.1, 10}, {0.2, 30}, {0.5, 45}, {inf, 50}}
	cases := []struct {
		name    string
		q       float64
		buckets []HistogramBucket
		want    float64
	}{
		// rank 25 falls in (0.1, 0.2], 15 of its 20: 0.1 + 0.1·15/20.
		{"p50", 0.5, b, 0.175},
		// rank 5 in the first bucket, interpolated from 0: 0.1·5/10.
		{"p10", 0.1, b, 0.05},
		// rank 45 is exactly the count at 0.5: the top of (0.2, 0.5].
		{"p90", 0.9, b, 0.5},
		// rank 47.5 and 49.5 only the +Inf bucket reaches: the highest
		// finite bound, 0.5, however far above it the values lie.
		{"p95 in +Inf", 0.95, b, 0.5},
		{"p99 in +Inf", 0.99, b, 0.5},
		{"q=1", 1, b, 0.5},
		{"q=0", 0, b, 0},
		{"q<0", -0.1, b, math.Inf(-1)},
		{"q>1", 1.1, b, math.Inf(+1)},
		// The same buckets in another order give the same answer.
		{"unsorted", 0.5, []HistogramBucket{{inf, 50}, {0.2, 30}, {0.5, 45}, {0.1, 10}}, 0.175},
		// A count below its predecessor's is raised to it: 0.2 holds 10,
		// so rank 10 is reached at 0.1: 0.1·10/10.
		{"non-monotonic", 0.5, []HistogramBucket{{0.1, 10}, {0.2, 8}, {inf, 20}}, 0.1},
		// A first bucket with a bound ≤ 0 gives that bound.
		{"negative first bound", 0.2, []HistogramBucket{{-1, 5}, {0, 5}, {inf, 10}}, -1},
		{"no +Inf bucket", 0.5, []HistogramBucket{{0.1, 10}, {0.2, 30}}, math.NaN()},
		{"only +Inf", 0.5, []HistogramBucket{{inf, 10}}, math.NaN()},
		{"no observations", 0.5, []HistogramBucket{{0.1, 0}, {inf, 0}}, math.NaN()},
		{"no buckets", 0.5, nil, math.NaN()},
		{"q NaN", math.NaN(), b, math.NaN()},
	}
	for _, c := range cases {
		got := HistogramQuantile(c.q, c.buckets)
		if !closeOrBothNaN(got, c.want, 1e-12) {
			t.Errorf("%s: HistogramQuantile(%v) = %v, want %v", c.name, c.q, got, c.want)
		}
	}
	if b[3].UpperBound != inf || b[1].Count != 30 {
		t.Errorf("HistogramQuantile modified its input: %v", b)
	}
}

// closeOrBothNaN compares within a relative tolerance; infinities must be
// equal and NaN matches only NaN.
func closeOrBothNaN(got, want, rel float64) bool {
	switch {
	case math.IsNaN(want):
		return math.IsNaN(got)
	case math.IsInf(want, 0) || want == 0:
		return got == want || math.Abs(got-want) <= rel
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}
