package metrics

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// orderStatistics bounds the q-quantile of the distribution one run's
// values came from, whatever that distribution (for independent values):
// with B ~ Binomial(n, q) the number of values below the true quantile,
// the k-th smallest value X₍ₖ₎ lies at or above it with probability
// P(B ≤ k − 1), below it with P(B ≥ k).
type orderStatistics struct {
	sorted []float64
	q      float64
	// cdf[k] is P(B ≤ k), k = 0..n.
	cdf []float64
}

func newOrderStatistics(values []float64, q float64) orderStatistics {
	sorted := slices.Sorted(slices.Values(values))
	n := len(sorted)
	cdf := make([]float64, n+1)
	sum := 0.0
	for k := 0; k <= n; k++ {
		sum += binomialPMF(n, k, q)
		cdf[k] = math.Min(1, sum)
	}
	return orderStatistics{sorted: sorted, q: q, cdf: cdf}
}

// upper is the smallest X₍ₖ₎ that lies at or above the quantile with
// probability ≥ 1 − α; +Inf when even the largest value does not, which
// happens while qⁿ > α (the p99 of 298 values: 0.99²⁹⁸ = 5.0%).
func (o orderStatistics) upper(alpha float64) float64 {
	n := len(o.sorted)
	// The first k with cdf[k−1] ≥ 1 − α.
	k := 1 + sort.Search(n, func(i int) bool { return o.cdf[i] >= 1-alpha })
	if k > n {
		return math.Inf(1)
	}
	return o.sorted[k-1]
}

// lower is the largest X₍ₖ₎ that lies at or below the quantile with
// probability ≥ 1 − α; 0 when even the smallest value does not.
func (o orderStatistics) lower(alpha float64) float64 {
	n := len(o.sorted)
	// The last k with cdf[k−1] ≤ α: P(B ≥ k) = 1 − cdf[k−1] ≥ 1 − α.
	k := sort.Search(n, func(i int) bool { return o.cdf[i] > alpha })
	if k == 0 {
		return 0
	}
	return o.sorted[k-1]
}

// upperCost is the smallest α at which upper exists: qⁿ.
func (o orderStatistics) upperCost() float64 { return 1 - o.cdf[len(o.sorted)-1] }

// lowerCost is the smallest α at which lower exists: (1 − q)ⁿ.
func (o orderStatistics) lowerCost() float64 { return o.cdf[0] }

// orderStatisticRatio bounds the ratio of a percentile p (0 < p < 100)
// between one baseline run and one candidate run by the order statistics
// of each: the ratio's lower bound at level 1 − α is the candidate's
// lower bound over the baseline's upper bound, each at its share of α
// (Bonferroni, so both hold together with probability ≥ 1 − α). The share
// is half each, unless one side needs more for its bound to exist: the
// baseline's upper bound of a p99 from 300 requests exists only at
// α ≥ 0.99³⁰⁰ = 4.9%, so it gets that and the candidate, whose lower
// bound exists at any level, the rest. The upper bound of the ratio is
// built the same way, mirrored.
func orderStatisticRatio(baseline, candidate []float64, p, level float64) RatioInterval {
	q := p / 100
	b, c := newOrderStatistics(baseline, q), newOrderStatistics(candidate, q)
	ri := RatioInterval{Method: MethodOrderStatistics, Confidence: level,
		Baseline: selectPercentile(slices.Clone(baseline), p), Candidate: selectPercentile(slices.Clone(candidate), p)}
	ri.Ratio = safeRatio(ri.Baseline, ri.Candidate)
	low := func(alpha float64) float64 { // the ratio's lower bound at 1 − alpha
		ab := math.Max(alpha/2, b.upperCost()*(1+1e-9)) // just above: the bound exists
		return ratioOrZero(c.lower(alpha-ab), b.upper(ab))
	}
	high := func(alpha float64) float64 { // its upper bound
		ac := math.Max(alpha/2, c.upperCost()*(1+1e-9))
		return ratioOrInf(c.upper(ac), b.lower(alpha-ac))
	}
	alpha := 1 - level
	ri.Low, ri.High = low(alpha), high(alpha)
	ri.pAbove = func(x float64) float64 { return exceedance(b.sorted, c.sorted, q, x, true) }
	ri.pBelow = func(x float64) float64 { return exceedance(b.sorted, c.sorted, q, x, false) }
	ri.Unbounded = unboundedWhy(b, c, p, alpha)
	ri.detectable = func(worse Direction) float64 { return detectableShift(b.sorted, len(c.sorted), q, alpha, worse) }
	return ri
}

// detectableShift is the smallest shift of the whole distribution (a
// fraction) the exceedance test would call real at α, worse in the
// direction given, had the candidate been the baseline's values shifted:
// the minimum detectable change, from the baseline's own data. +Inf when
// no shift would (too few values).
func detectableShift(base []float64, n2 int, q, alpha float64, worse Direction) float64 {
	cand := make([]float64, n2)
	for i := range cand { // the baseline's quantiles at the candidate's size
		cand[i] = sortedQuantile(base, (float64(i)+0.5)/float64(n2))
	}
	scaled := make([]float64, n2)
	real := func(r float64) bool {
		for i, v := range cand {
			scaled[i] = r * v
		}
		if worse == HigherIsBetter {
			return exceedance(base, scaled, q, 1, false) <= alpha
		}
		return exceedance(base, scaled, q, 1, true) <= alpha
	}
	if worse == HigherIsBetter {
		if !real(1e-3) {
			return math.Inf(1)
		}
		lo, hi := 1e-3, 1.0 // real at lo, not at 1
		for range 50 {
			if mid := (lo + hi) / 2; real(mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
		return 1 - lo
	}
	if !real(1e3) {
		return math.Inf(1)
	}
	lo, hi := 1.0, 1e3 // not real at 1, real at hi
	for range 50 {
		if mid := (lo + hi) / 2; real(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi - 1
}

// exceedance is the exact distribution-free p-value of a percentile's
// change, by an exceedance test (Mathisen): with B₍ⱼ₎ the baseline's
// q-quantile order statistic (j = ⌈q·n₁⌉) scaled by x, it counts the
// candidate values above it (above, the claim "the ratio is above x") or
// below it (the claim "below x"). If the candidate's values were the
// baseline's times x, all n₁ + n₂ values would be exchangeable, and the
// number Y of candidate values below B₍ⱼ₎ would follow
//
//	P(Y = y) = C(j − 1 + y, y)·C(n₁ − j + n₂ − y, n₂ − y) / C(n₁ + n₂, n₂)
//
// so the p-value is the chance of as many exceedances or more. Unlike the
// order-statistic bounds it needs no bound of the baseline's percentile
// to exist: 300 requests cannot bound a p99 below their maximum with
// more than 95% confidence, yet a candidate with 150 of its 300 values
// above that p99 is beyond any doubt.
func exceedance(base, cand []float64, q, x float64, above bool) float64 {
	n1, n2 := len(base), len(cand)
	j := min(n1, max(1, int(math.Ceil(q*float64(n1)))))
	limit := x * base[j-1]
	below, _ := slices.BinarySearch(cand, limit) // candidate values < limit
	if !above {
		// "Below x": few candidate values at or above the limit.
		atOrBelow, _ := slices.BinarySearch(cand, math.Nextafter(limit, math.Inf(1)))
		return 1 - exceedanceCDF(n1, n2, j, atOrBelow-1)
	}
	return exceedanceCDF(n1, n2, j, below)
}

// exceedanceCDF is P(Y ≤ y) for the Y of exceedance, each term's log
// from the one before (so a first term too small for a float64 does not
// zero those after it): P(k + 1)/P(k) = (j + k)/(k + 1) · (n₂ − k)/(n₁ − j + n₂ − k).
func exceedanceCDF(n1, n2, j, y int) float64 {
	if y < 0 {
		return 0
	}
	if y >= n2 {
		return 1
	}
	logTerm := logChoose(n1-j+n2, n2) - logChoose(n1+n2, n2) // log P(Y = 0)
	sum := math.Exp(logTerm)
	for k := 0; k < y; k++ {
		logTerm += math.Log(float64(j+k) / float64(k+1) * float64(n2-k) / float64(n1-j+n2-k))
		sum += math.Exp(logTerm)
	}
	return math.Min(1, sum)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// ratioOrZero is c/b for a lower bound: 0 when c is unknown (0) or b is
// unbounded.
func ratioOrZero(c, b float64) float64 {
	if !(c > 0) || math.IsInf(b, 1) || !(b > 0) {
		return 0
	}
	return c / b
}

// ratioOrInf is c/b for an upper bound: +Inf when c is unbounded or b
// unknown.
func ratioOrInf(c, b float64) float64 {
	if math.IsInf(c, 1) || !(b > 0) {
		return math.Inf(1)
	}
	return c / b
}

// smallestAlpha is the smallest α in (0, 1) at which holds is true,
// given that once true it stays true for every larger α (a bound only
// moves inwards as α grows): the p-value of the claim the bound makes.
// 1 when it never holds.
func smallestAlpha(holds func(alpha float64) bool) float64 {
	const top = 1 - 1e-12
	if !holds(top) {
		return 1
	}
	lo, hi := 0.0, top
	for range 60 {
		mid := (lo + hi) / 2
		if holds(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// unboundedWhy says which bound of the ratio does not exist and why:
// the lower one needs the baseline's upper bound of its percentile, the
// upper one the candidate's, and a run whose tail is too thin (qⁿ ≥ α)
// has none at level 1 − α.
func unboundedWhy(b, c orderStatistics, p, alpha float64) string {
	side := func(name string, o orderStatistics) string {
		n := len(o.sorted)
		return fmt.Sprintf("only %.1f of the %s's %d requests lie above p%g on average, too few to bound its p%g from above at %g%% (%d would)",
			float64(n)*(1-o.q), name, n, p, p, 100*(1-alpha), requestsToBound(o.q, alpha))
	}
	var why []string
	if b.upperCost() >= alpha {
		why = append(why, side("baseline", b))
	}
	if c.upperCost() >= alpha {
		why = append(why, side("candidate", c))
	}
	return strings.Join(why, "; ")
}

// requestsToBound is the fewest values whose largest bounds the
// q-quantile from above at α, with some of α left for the other side:
// the smallest n with qⁿ < α.
func requestsToBound(q, alpha float64) int {
	return int(math.Floor(math.Log(alpha)/math.Log(q))) + 1
}

// binomialPMF is P(B = k) for B ~ Binomial(n, q), through logarithms so
// large n neither overflows nor underflows to nonsense.
func binomialPMF(n, k int, q float64) float64 {
	if q <= 0 || q >= 1 {
		if (q <= 0 && k == 0) || (q >= 1 && k == n) {
			return 1
		}
		return 0
	}
	lgN, _ := math.Lgamma(float64(n + 1))
	lgK, _ := math.Lgamma(float64(k + 1))
	lgNK, _ := math.Lgamma(float64(n - k + 1))
	return math.Exp(lgN - lgK - lgNK + float64(k)*math.Log(q) + float64(n-k)*math.Log1p(-q))
}
