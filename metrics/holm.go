package metrics

import (
	"math"
	"slices"
)

// HolmAdjust returns Holm–Bonferroni adjusted p-values, in the order of
// p: with the m p-values sorted ascending, p₍₁₎ ≤ … ≤ p₍ₘ₎,
//
//	p̃₍ₖ₎ = max over j ≤ k of min(1, (m − j + 1)·p₍ⱼ₎).
//
// Rejecting every hypothesis whose adjusted p-value is ≤ α keeps the
// family-wise error rate (the chance of any false rejection) at α, with
// no assumption about how the tests depend on each other (Holm 1979).
// A NaN p-value counts as 1.
func HolmAdjust(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	value := func(i int) float64 {
		if math.IsNaN(p[i]) {
			return 1
		}
		return p[i]
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(value(a), value(b)) })
	adjusted := make([]float64, m)
	running := 0.0
	for k, i := range order {
		running = math.Max(running, math.Min(1, float64(m-k)*value(i)))
		adjusted[i] = running
	}
	return adjusted
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
