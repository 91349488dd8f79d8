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
// between one baseline run and one candidate run, distribution-free.
// Whether it got worse is the exceedance test's question (exceedance),
// and its lower bound that test inverted (exceedanceLow), so the bound
// excludes no change exactly when the test calls the change real. The
// upper bound, which says whether a regression past the tolerance is
// excluded, is the candidate's order-statistic upper bound over the
// baseline's lower bound, each at its share of α (Bonferroni, so both
// hold together with probability ≥ 1 − α): half each, unless the
// candidate needs more for its bound to exist — the upper bound of a p99
// from 300 requests exists only at α ≥ 0.99³⁰⁰ = 4.9%, so it gets that
// and the baseline the rest.
func orderStatisticRatio(baseline, candidate []float64, p, level float64) RatioInterval {
	q := p / 100
	b, c := newOrderStatistics(baseline, q), newOrderStatistics(candidate, q)
	ri := RatioInterval{Method: MethodOrderStatistics, Confidence: level,
		Baseline: selectPercentile(slices.Clone(baseline), p), Candidate: selectPercentile(slices.Clone(candidate), p)}
	ri.Ratio = safeRatio(ri.Baseline, ri.Candidate)
	high := func(alpha float64) float64 { // the ratio's upper bound at 1 − alpha
		ac := math.Max(alpha/2, c.upperCost()*(1+1e-9))
		return ratioOrInf(c.upper(ac), b.lower(alpha-ac))
	}
	alpha := 1 - level
	ri.Low, ri.High = exceedanceLow(b.sorted, c.sorted, q, alpha), high(alpha)
	ri.pAbove = func(x float64) float64 { return exceedance(b.sorted, c.sorted, q, x, true) }
	// "Better" is claimed only when the upper bound shown says so too: the
	// exceedance test of the other tail can be significant while the
	// order-statistic bound still reaches past the baseline.
	ri.pBelow = func(x float64) float64 {
		if !(ri.High < x) {
			return 1
		}
		return exceedance(b.sorted, c.sorted, q, x, false)
	}
	ri.Unbounded = unboundedWhy(ri, b, c, p, alpha)
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

// exceedanceLow is the lower bound of the ratio that the exceedance
// test gives, inverted: the largest x at which "the ratio is at most x"
// is still rejected at α, so that the bound lies above 1 exactly when
// the test calls the change real. With k the most candidate values below
// the baseline's order statistic B₍ⱼ₎ that P(Y ≤ k) ≤ α allows, it is the
// (k + 1)-th smallest candidate value over B₍ⱼ₎; 0 when even no
// candidate value below it would be significant (too few values).
func exceedanceLow(base, cand []float64, q, alpha float64) float64 {
	n1, n2 := len(base), len(cand)
	j := quantileRank(q, n1)
	k := -1
	for k+1 < n2 && exceedanceCDF(n1, n2, j, k+1) <= alpha {
		k++
	}
	if k < 0 || !(base[j-1] > 0) {
		return 0
	}
	return cand[k] / base[j-1]
}

// quantileRank is j = ⌈q·n⌉, the rank of the order statistic that
// estimates the q-quantile of n values (at least 1), with q·n rounded
// first so that 0.99·300 is 297, not 298.
func quantileRank(q float64, n int) int {
	return min(n, max(1, int(math.Ceil(math.Round(q*float64(n)*1e9)/1e9))))
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
	j := quantileRank(q, n1)
	limit := x * base[j-1]
	// A candidate value equal to the limit counts against the claim, so
	// ties (a simulator's identical gaps) never make a change real.
	below, _ := slices.BinarySearch(cand, limit) // candidate values < limit
	if !above {
		// "Below x": many candidate values below the limit.
		return 1 - exceedanceCDF(n1, n2, j, below-1)
	}
	atOrBelow, _ := slices.BinarySearch(cand, math.Nextafter(limit, math.Inf(1)))
	return exceedanceCDF(n1, n2, j, atOrBelow)
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

// ratioOrInf is c/b for an upper bound: +Inf when c is unbounded or b
// unknown.
func ratioOrInf(c, b float64) float64 {
	if math.IsInf(c, 1) || !(b > 0) {
		return math.Inf(1)
	}
	return c / b
}

// unboundedWhy says which bound of the ratio does not exist and why.
// The lower one is missing when the runs are so short that not even a
// candidate with no request below the baseline's order statistic would
// be significant; the upper one needs the candidate's order-statistic
// upper bound, which a run whose tail is too thin (qⁿ ≥ α) has not.
func unboundedWhy(ri RatioInterval, b, c orderStatistics, p, alpha float64) string {
	var why []string
	if ri.Low == 0 {
		why = append(why, fmt.Sprintf("with %d baseline and %d candidate requests not even a candidate above the baseline's p%g in every request would be significant at %g%%",
			len(b.sorted), len(c.sorted), p, 100*(1-alpha)))
	}
	if c.upperCost() >= alpha {
		n := len(c.sorted)
		why = append(why, fmt.Sprintf("only %.1f of the candidate's %d requests lie above p%g on average, too few to bound its p%g from above at %g%% (%d would)",
			float64(n)*(1-c.q), n, p, p, 100*(1-alpha), requestsToBound(c.q, alpha)))
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
