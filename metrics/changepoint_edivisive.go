package metrics

import "math"

// bestCandidate is E-divisive's next cut: over every segment between the
// cuts (of two values or more), the split τ that maximises the divergence
// q̂ between a segment's values before τ and those from τ up to some end
// κ, the first such split on a tie (segments in order, smaller τ, then
// smaller κ); false when no segment can be split.
func bestCandidate(series []float64, cuts []int) (int, bool) {
	best, bestQ, found := 0, math.Inf(-1), false
	lo := 0
	for _, hi := range append(append([]int(nil), cuts...), len(series)) {
		if hi-lo > 1 {
			if tau, q := bestSplit(series[lo:hi]); q > bestQ {
				best, bestQ, found = lo+tau, q, true
			}
		}
		lo = hi
	}
	return best, found
}

// bestSplit is the split τ of z (len ≥ 2) with the largest q̂(z[:τ],
// z[τ:κ]) over 0 < τ < κ ≤ len(z), and that q̂.
func bestSplit(z []float64) (tau int, q float64) {
	tau, q = 1, math.Inf(-1)
	for t := 1; t < len(z); t++ {
		within := pairSum(z[:t])
		between, after := 0.0, 0.0
		for k := t + 1; k <= len(z); k++ {
			y := z[k-1]
			for _, x := range z[:t] {
				between += math.Abs(x - y)
			}
			for _, w := range z[t : k-1] {
				after += math.Abs(w - y)
			}
			if v := qhat(t, k-t, between, within, after); v > q {
				tau, q = t, v
			}
		}
	}
	return tau, q
}

// qhat is Matteson and James's divergence of X (n values) and Y (m
// values) with α = 1, scaled by nm/(n+m):
//
//	q̂ = 2/(n+m)·Σ|X−Y| − 2m/((n+m)(n−1))·Σ_{i<j}|Xi−Xj| − 2n/((n+m)(m−1))·Σ_{i<j}|Yi−Yj|
//
// from the sum of distances between the sides and the sums of pair
// distances within each (a side of one value has no pair: its term is 0).
func qhat(n, m int, between, withinX, withinY float64) float64 {
	fn, fm := float64(n), float64(m)
	q := 2 / (fn + fm) * between
	if n > 1 {
		q -= 2 * fm / ((fn + fm) * (fn - 1)) * withinX
	}
	if m > 1 {
		q -= 2 * fn / ((fn + fm) * (fm - 1)) * withinY
	}
	return q
}

// pairSum is the sum of |xi − xj| over the pairs i < j of xs.
func pairSum(xs []float64) float64 {
	s := 0.0
	for i := range xs {
		for _, y := range xs[i+1:] {
			s += math.Abs(xs[i] - y)
		}
	}
	return s
}
