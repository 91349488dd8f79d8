package metrics

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
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
	b, i, rank, ok := quantileBucket(q, buckets)
	switch {
	case !ok:
		return math.NaN()
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

// quantileBucket prepares buckets as HistogramQuantile reads them (sorted,
// merged, made monotonic) and finds the index of the bucket the
// q-quantile's rank falls in; ok is false when the histogram cannot say
// (no +Inf bucket, fewer than two buckets, no observations). q is in [0, 1].
func quantileBucket(q float64, buckets []HistogramBucket) (b []HistogramBucket, i int, rank float64, ok bool) {
	b = slices.Clone(buckets)
	slices.SortFunc(b, func(x, y HistogramBucket) int { return cmp.Compare(x.UpperBound, y.UpperBound) })
	if !math.IsInf(b[len(b)-1].UpperBound, +1) {
		return nil, 0, 0, false
	}
	b = coalesceBuckets(b)
	for i := 1; i < len(b); i++ {
		b[i].Count = max(b[i].Count, b[i-1].Count)
	}
	if len(b) < 2 || b[len(b)-1].Count == 0 {
		return nil, 0, 0, false
	}
	rank = q * b[len(b)-1].Count
	i = sort.Search(len(b)-1, func(i int) bool { return b[i].Count >= rank })
	return b, i, rank, true
}

// HistogramRange is the bucket a histogram quantile lies in, (Lower,
// Upper] in the histogram's unit (seconds as exposed). It is all a
// histogram measures of a quantile: HistogramQuantile's value inside it is
// a linear interpolation, which with wide buckets can land far from every
// observation (vLLM's queue-time histogram puts a 0.02 ms mean in
// (0, 0.3] s, whose interpolated p50 is 150 ms). Upper is +Inf when the
// quantile lies above the highest finite bound.
type HistogramRange struct {
	Lower, Upper float64
}

// HistogramQuantileBucket is the bucket the q-quantile (0 ≤ q ≤ 1) of the
// buckets falls in, by the same rank as HistogramQuantile; ok is false
// when HistogramQuantile would be NaN or q is outside [0, 1]. The first
// bucket's lower bound is 0 (observations are durations), or its own
// bound when that is ≤ 0.
func HistogramQuantileBucket(q float64, buckets []HistogramBucket) (r HistogramRange, ok bool) {
	if math.IsNaN(q) || q < 0 || q > 1 || len(buckets) == 0 {
		return HistogramRange{}, false
	}
	b, i, _, ok := quantileBucket(q, buckets)
	switch {
	case !ok:
		return HistogramRange{}, false
	case i == 0:
		return HistogramRange{Lower: min(0, b[0].UpperBound), Upper: b[0].UpperBound}, true
	}
	return HistogramRange{Lower: b[i-1].UpperBound, Upper: b[i].UpperBound}, true
}

// Format says the range in a unit: scale converts the histogram's unit to
// it (1e3 for seconds to ms). A range from 0 is "≤ upper", one above
// every finite bound "> lower", any other "in (lower, upper]", so a
// quantile reads "p99 in (100, 250] ms" — the bucket, never a point.
func (r HistogramRange) Format(scale float64, unit string) string {
	lo, hi := r.Lower*scale, r.Upper*scale
	switch {
	case math.IsInf(r.Upper, +1):
		return fmt.Sprintf("> %s %s", strconv.FormatFloat(lo, 'g', 6, 64), unit)
	case r.Lower == 0:
		return fmt.Sprintf("≤ %s %s", strconv.FormatFloat(hi, 'g', 6, 64), unit)
	}
	return fmt.Sprintf("in (%s, %s] %s", strconv.FormatFloat(lo, 'g', 6, 64), strconv.FormatFloat(hi, 'g', 6, 64), unit)
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
