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

// FamilyComparison is a Comparison judged within a family of metrics.
type FamilyComparison struct {
	Comparison
	// HolmPRegression and HolmPImprovement are PRegression and
	// PImprovement adjusted by HolmAdjust over the family.
	HolmPRegression, HolmPImprovement float64
}

// JudgeFamily judges metrics of one run together, keeping the chance
// that any of them is falsely called a regression (or an improvement) at
// 1 − confidence. Each metric keeps its own interval and verdict, which
// are then confirmed by Holm: a regression stands only if its
// Holm-adjusted PRegression is ≤ α = 1 − confidence, else it becomes
// inconclusive (its interval lies beyond the limit, but not by enough
// for this many metrics); an improvement stands only if its adjusted
// PImprovement is ≤ α, else it becomes no significant change (its
// interval is below 1, so within the tolerance). Regressions and
// improvements are two families, adjusted separately. No significant
// change and inconclusive are left as they are: they claim no
// difference, so they cannot be false alarms.
func JudgeFamily(cs []Comparison, confidence float64) []FamilyComparison {
	alpha := 1 - confidence
	pReg := make([]float64, len(cs))
	pImp := make([]float64, len(cs))
	for i, c := range cs {
		pReg[i], pImp[i] = c.PRegression, c.PImprovement
	}
	holmReg, holmImp := HolmAdjust(pReg), HolmAdjust(pImp)
	out := make([]FamilyComparison, len(cs))
	for i, c := range cs {
		f := FamilyComparison{Comparison: c, HolmPRegression: holmReg[i], HolmPImprovement: holmImp[i]}
		switch {
		case c.Verdict == VerdictRegression && f.HolmPRegression > alpha:
			f.Verdict = VerdictInconclusive
		case c.Verdict == VerdictImprovement && f.HolmPImprovement > alpha:
			f.Verdict = VerdictNoChange
		}
		out[i] = f
	}
	return out
}
