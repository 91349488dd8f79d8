package metrics

import "math"

// MSERBatch is the batch size of MSER-5, the warm-up rule of an auto
// point: values are averaged in batches of 5 before the truncation point
// is chosen, which smooths single outliers that would otherwise pull the
// cut (White, Cobb & Spratt 2000 found batches of 5 the most reliable).
const MSERBatch = 5

// MSERTruncation is how many leading values of a time-ordered series
// MSER-5 judges to be a warm-up transient: the series is cut into the m
// batch means Z₁..Zₘ of MSERBatch consecutive values (a partial last
// batch is left out), and for each d in 0..⌊m/2⌋ the marginal standard
// error
//
//	MSER(d) = Σⱼ₌d₊₁..ₘ (Zⱼ − Z̄_d)² / (m − d)²,  Z̄_d the mean of Z_d₊₁..Zₘ
//
// is computed; the d minimising it (the smallest on a tie) drops d·5
// values. Cutting a transient removes values far from the steady mean, so
// the numerator falls faster than the shrinking (m − d)² denominator;
// cutting steady values only shrinks the denominator, so the minimum sits
// at the knee. Only the first half is searched: past it MSER is known to
// choose spurious late cuts on the last few batches. A series of fewer
// than 2 batches drops nothing. A series with a trend to its end (no
// steady state reached) gets a cut inside the first half — the rule
// cannot tell a slow drift from a transient — so its CI, not MSER,
// is what keeps such a point from stopping early.
func MSERTruncation(values []float64) int {
	m := len(values) / MSERBatch
	if m < 2 {
		return 0
	}
	z := make([]float64, m)
	for j := range z {
		s := 0.0
		for _, v := range values[j*MSERBatch : (j+1)*MSERBatch] {
			s += v
		}
		z[j] = s / MSERBatch
	}
	// Suffix sums give every MSER(d) in one backward pass.
	best, bestD := math.Inf(1), 0
	sum, sq := 0.0, 0.0
	stats := make([]float64, m/2+1)
	for j := m - 1; j >= 0; j-- {
		sum += z[j]
		sq += z[j] * z[j]
		if j <= m/2 {
			k := float64(m - j)
			ss := sq - sum*sum/k // Σ(Z − Z̄)² over the kept batches
			stats[j] = math.Max(ss, 0) / (k * k)
		}
	}
	for d, v := range stats {
		if v < best {
			best, bestD = v, d
		}
	}
	return bestD * MSERBatch
}
