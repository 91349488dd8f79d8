package metrics

import (
	"math"
	"math/big"
	"math/bits"
)

// histogramSubBits sets the histogram's resolution: every power-of-two
// range of values is split into 2^histogramSubBits equal buckets, so a
// bucket is at most 1/2048 of its lower bound wide and its midpoint is
// within 1/4096 (0.025%) of any value in it. Values below 4096 get a
// bucket each and are exact.
const histogramSubBits = 11

const histogramSubCount = 1 << histogramSubBits

// logHistogram counts non-negative integer values (ns) in log-linear
// buckets, the HdrHistogram layout: fixed memory (under 1 MiB however many
// values) for distributions too large to keep value by value. Count, min,
// max, avg and std are exact; percentiles are read from bucket midpoints.
type logHistogram struct {
	counts   []int64
	n        int64
	min, max int64
	sum      int64
	// sumSq is Σv² as a 128-bit integer, so std is exact and does not
	// depend on the order values arrived in.
	sumSqHi, sumSqLo uint64
}

func (h *logHistogram) add(v int64) {
	v = max(v, 0) // a monotonic clock never yields a negative gap
	i := histogramBucket(v)
	if i >= len(h.counts) {
		h.counts = append(h.counts, make([]int64, i+1-len(h.counts))...)
	}
	h.counts[i]++
	if h.n == 0 || v < h.min {
		h.min = v
	}
	h.max = max(h.max, v)
	h.n++
	h.sum += v
	hi, lo := bits.Mul64(uint64(v), uint64(v))
	var carry uint64
	h.sumSqLo, carry = bits.Add64(h.sumSqLo, lo, 0)
	h.sumSqHi += hi + carry
}

// histogramBucket maps v ≥ 0 to its bucket index: values below
// 2·histogramSubCount map to themselves; above, each power-of-two range
// [2^(L−1), 2^L) has histogramSubCount buckets of width 2^(L−12).
func histogramBucket(v int64) int {
	l := bits.Len64(uint64(v))
	if l <= histogramSubBits+1 {
		return int(v)
	}
	shift := l - histogramSubBits - 1
	return (l-histogramSubBits)*histogramSubCount + int(v>>shift) - histogramSubCount
}

// bucketMidpoint is the centre of bucket i's integer range.
func bucketMidpoint(i int) float64 {
	if i < 2*histogramSubCount {
		return float64(i)
	}
	octave, offset := i/histogramSubCount, i%histogramSubCount
	shift := octave - 1
	lower := int64(offset+histogramSubCount) << shift
	return float64(lower) + float64(int64(1)<<shift-1)/2
}

// valueAtRank is the value of the k-th smallest value (0-based), as its
// bucket's midpoint clamped to the exact min and max.
func (h *logHistogram) valueAtRank(k int64) float64 {
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen > k {
			return math.Min(math.Max(bucketMidpoint(i), float64(h.min)), float64(h.max))
		}
	}
	return float64(h.max)
}

// percentile interpolates linearly between closest ranks, as numpy does
// over sorted values.
func (h *logHistogram) percentile(p float64) float64 {
	rank := float64(h.n-1) * p / 100
	lo := int64(math.Floor(rank))
	a := h.valueAtRank(lo)
	if lo+1 >= h.n {
		return a
	}
	b := h.valueAtRank(lo + 1)
	return a + (b-a)*(rank-float64(lo))
}

// distribution reduces the histogram to a Distribution that answers any
// percentile from the histogram.
func (h *logHistogram) distribution() *Distribution {
	if h.n == 0 {
		return nil
	}
	d := &Distribution{
		Count: int(h.n),
		Avg:   float64(h.sum) / float64(h.n),
		Min:   float64(h.min),
		Max:   float64(h.max),
		Std:   h.std(),
		hist:  h,
	}
	for i, field := range d.percentileFields() {
		*field = h.percentile(fixedPercentiles[i])
	}
	return d
}

// std is the population standard deviation from the exact sums:
// sqrt((n·Σv² − (Σv)²) / n²).
func (h *logHistogram) std() float64 {
	n := big.NewInt(h.n)
	sumSq := new(big.Int).Lsh(new(big.Int).SetUint64(h.sumSqHi), 64)
	sumSq.Or(sumSq, new(big.Int).SetUint64(h.sumSqLo))
	sum := big.NewInt(h.sum)
	num := new(big.Int).Mul(n, sumSq)
	num.Sub(num, sum.Mul(sum, sum))
	variance, _ := new(big.Float).Quo(new(big.Float).SetInt(num), new(big.Float).SetInt(n.Mul(n, n))).Float64()
	return math.Sqrt(math.Max(variance, 0))
}
