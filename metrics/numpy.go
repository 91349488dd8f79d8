package metrics

import "math"

// GenAI-Perf computes every statistic with numpy 1.x, and its JSON prints
// floats with Python's repr, so a last-bit difference shows up in the file.
// The functions here replay numpy's arithmetic operation for operation,
// which makes llmbench's numbers equal GenAI-Perf's bit for bit (checked
// against numpy 1.24.2 in numpy_golden_test.go).
//
// Go may fuse x*y+z into one FMA instruction on some architectures (arm64,
// ppc64le, s390x), which rounds once where numpy rounds twice; the explicit
// float64(...) conversions below forbid that fusion (Go spec, "Arithmetic
// operators").

const (
	// numpyBufferSize is numpy's reduction buffer (NPY_BUFSIZE): a sum is
	// computed buffer by buffer, each buffer summed pairwise and added to a
	// running total.
	numpyBufferSize = 8192
	// numpyPairwiseBlock is numpy's PW_BLOCKSIZE: below it a block is summed
	// with eight interleaved accumulators instead of being split further.
	numpyPairwiseBlock = 128
)

// numpySum is np.sum of a float64 (or integer, cast to float64) array.
// Plain left-to-right summation, as montanaflynn/stats does, agrees only for
// fewer than eight values.
func numpySum(x []float64) float64 {
	var total float64
	for len(x) > 0 {
		n := min(len(x), numpyBufferSize)
		total += pairwiseSum(x[:n])
		x = x[n:]
	}
	return total
}

// pairwiseSum is numpy's pairwise_sum (numpy/core/src/umath/loops_utils.h).
func pairwiseSum(x []float64) float64 {
	n := len(x)
	switch {
	case n < 8:
		var sum float64
		for _, v := range x {
			sum += v
		}
		return sum
	case n <= numpyPairwiseBlock:
		var r [8]float64
		copy(r[:], x[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += x[i+j]
			}
		}
		sum := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			sum += x[i]
		}
		return sum
	default:
		half := n / 2
		half -= half % 8
		return pairwiseSum(x[:half]) + pairwiseSum(x[half:])
	}
}

// numpyMeanStd is np.mean and np.std (population, ddof=0) of x, summed in
// the order given: numpy's result depends on the order of the values.
func numpyMeanStd(x []float64) (mean, std float64) {
	n := float64(len(x))
	mean = numpySum(x) / n
	// The squared deviations are summed as numpySum sums, a buffer at a
	// time, so they are made a buffer at a time: the same operations in
	// the same order, without a copy the size of x (a run's pooled chunk
	// gaps are millions of values, and this copy was the largest page
	// the summaries touched after a 10,000-stream run).
	sq := make([]float64, min(len(x), numpyBufferSize))
	var total float64
	for len(x) > 0 {
		k := min(len(x), numpyBufferSize)
		for i, v := range x[:k] {
			d := v - mean
			sq[i] = float64(d * d)
		}
		total += pairwiseSum(sq[:k])
		x = x[k:]
	}
	return mean, math.Sqrt(total / n)
}

// numpyPercentile is np.percentile(x, p) with the default "linear" method
// (Hyndman–Fan type 7) over ascending sorted values. numpy interpolates from
// the nearer end: a+(b−a)·t below t=0.5 and b−(b−a)·(1−t) from 0.5 up.
// montanaflynn/stats always uses the first form, so it differs from numpy in
// the last bit for a few percent of inputs ([0,13] at p90: 11.700000000000001
// against numpy's 11.7); that is why llmbench does not delegate to it.
func numpyPercentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	rank := float64(n-1) * (p / 100)
	if rank >= float64(n-1) {
		return sorted[n-1]
	}
	lo := math.Floor(rank)
	i, t := int(lo), rank-lo
	a, b := sorted[i], sorted[i+1]
	d := b - a
	if t >= 0.5 {
		return b - float64(d*(1-t))
	}
	return a + float64(d*t)
}
