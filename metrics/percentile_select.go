package metrics

import (
	"math"
	"slices"
)

// selectPercentile is numpy's percentile p (0..100, linear interpolation)
// of unsorted values, which it reorders: the two order statistics around
// the rank are found by selection in O(n) instead of sorting, which is
// what makes thousands of bootstrap resamples cheap. It equals
// numpyPercentile of the sorted values bit for bit.
func selectPercentile(v []float64, p float64) float64 {
	n := len(v)
	if n <= 32 {
		slices.Sort(v)
		return numpyPercentile(v, p)
	}
	rank := float64(n-1) * (p / 100)
	if rank >= float64(n-1) {
		return slices.Max(v)
	}
	lo := math.Floor(rank)
	i, t := int(lo), rank-lo
	selectKth(v, i)
	a := v[i]
	if t == 0 {
		return a
	}
	b := slices.Min(v[i+1:])
	d := b - a
	if t >= 0.5 {
		return b - float64(d*(1-t))
	}
	return a + float64(d*t)
}

// selectKth reorders v so that v[k] is the value a sort would put there,
// with nothing smaller after it and nothing larger before it (Hoare's
// quickselect, median-of-three pivot).
func selectKth(v []float64, k int) {
	lo, hi := 0, len(v)-1
	for hi > lo {
		i, j := partition(v, lo, hi)
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

// partition splits v[lo..hi] around a median-of-three pivot into
// v[lo..j] ≤ pivot ≤ v[i..hi], with j < i.
func partition(v []float64, lo, hi int) (i, j int) {
	mid := lo + (hi-lo)/2
	pivot := median3(v[lo], v[mid], v[hi])
	i, j = lo, hi
	for i <= j {
		for v[i] < pivot {
			i++
		}
		for v[j] > pivot {
			j--
		}
		if i <= j {
			v[i], v[j] = v[j], v[i]
			i++
			j--
		}
	}
	return i, j
}

func median3(a, b, c float64) float64 {
	return max(min(a, b), min(max(a, b), c))
}
