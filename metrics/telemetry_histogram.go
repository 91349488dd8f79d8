package metrics

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// HistogramBucket is one bucket of a Prometheus histogram: Count
// observations were ≤ UpperBound (cumulative, the _bucket series with its
// le label).
type HistogramBucket struct {
	UpperBound, Count float64
}

// HistogramQuantile is PromQL's histogram_quantile(q, buckets) for a
// classic histogram (prometheus/promql/quantile.go, bucketQuantile), so a
// server-side percentile here equals what a Grafana panel over the same
// buckets shows:
//
//   - q < 0 is −Inf, q > 1 is +Inf, q NaN is NaN;
//   - the buckets are sorted by upper bound, and the highest must be +Inf,
//     else NaN; buckets with the same bound are merged, and a count below
//     its predecessor's is raised to it (non-monotonic input);
//   - fewer than two buckets, or no observations, is NaN;
//   - rank = q × (the +Inf bucket's count); the first bucket whose count
//     reaches the rank holds the quantile, which is interpolated linearly
//     between that bucket's lower bound (the previous bucket's upper bound,
//     0 for the first) and its upper bound;
//   - a rank only the +Inf bucket reaches gives the highest finite upper
//     bound: the histogram cannot say how far above it the value lies;
//   - a rank in the first bucket whose upper bound is ≤ 0 gives that bound.
//
// Recent Prometheus releases also smooth over count decreases smaller than
// 1e-12 relative, a floating-point tolerance for rate()d input; deltas of
// scraped integer counts never need it.
func HistogramQuantile(q float64, buckets []HistogramBucket) float64 {
	switch {
	case math.IsNaN(q):
		return math.NaN()
	case q < 0:
		return math.Inf(-1)
	case q > 1:
		return math.Inf(+1)
	case len(buckets) == 0:
		return math.NaN()
	}
	b := slices.Clone(buckets)
	slices.SortFunc(b, func(x, y HistogramBucket) int { return cmp.Compare(x.UpperBound, y.UpperBound) })
	if !math.IsInf(b[len(b)-1].UpperBound, +1) {
		return math.NaN()
	}
	b = coalesceBuckets(b)
	for i := 1; i < len(b); i++ {
		b[i].Count = max(b[i].Count, b[i-1].Count)
	}
	if len(b) < 2 {
		return math.NaN()
	}
	observations := b[len(b)-1].Count
	if observations == 0 {
		return math.NaN()
	}
	rank := q * observations
	i := sort.Search(len(b)-1, func(i int) bool { return b[i].Count >= rank })
	switch {
	case i == len(b)-1:
		return b[len(b)-2].UpperBound
	case i == 0 && b[0].UpperBound <= 0:
		return b[0].UpperBound
	}
	start, end, count := 0.0, b[i].UpperBound, b[i].Count
	if i > 0 {
		start = b[i-1].UpperBound
		count -= b[i-1].Count
		rank -= b[i-1].Count
	}
	return start + (end-start)*(rank/count)
}

// coalesceBuckets merges sorted buckets with the same upper bound.
func coalesceBuckets(b []HistogramBucket) []HistogramBucket {
	out := b[:1]
	for _, x := range b[1:] {
		if last := &out[len(out)-1]; x.UpperBound == last.UpperBound {
			last.Count += x.Count
		} else {
			out = append(out, x)
		}
	}
	return out
}
