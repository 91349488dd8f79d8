package metrics

import "math"

// PlannedMDC is the minimum detectable change of a baseline gate before
// the candidate is measured: the smallest change (a fraction) the judge
// could call real with these baseline runs against candidateRuns runs of
// the same size, estimated from the baseline's own data (docs/compare.md,
// "Power before sending"). With runs to spread over (two or more on the
// baseline side) it is exp(t·s·√(1/n₁ + 1/n₂)) − 1 from the baseline's
// between-run spread s; with one run a side, the judgment of the
// baseline's run against itself (for a p99, how far its order statistics
// reach). NaN when the baseline cannot tell (one baseline run against
// repeats: their spread is known only after the run); +Inf when no change
// could ever be called real.
func (g Gate) PlannedMDC(baseline []RunData, candidateRuns int, opt JudgeOptions) (float64, error) {
	bs, err := g.Sample(baseline)
	if err != nil {
		return math.NaN(), err
	}
	d, _, err := g.baselineQuestion()
	if err != nil {
		return math.NaN(), err
	}
	nb, nc := len(bs.Repeats), max(1, candidateRuns)
	switch {
	case nb >= 2:
		x, ok := logs(bs.Repeats)
		if !ok {
			return math.NaN(), nil
		}
		df := float64(nb + nc - 2)
		s := math.Sqrt(squares(x, mean(x)) / float64(nb-1))
		half := studentTQuantile(1-opt.alpha(), df) * s * math.Sqrt(1/float64(nb)+1/float64(nc))
		return minimumDetectable(d, RatioInterval{Baseline: 1, Ratio: 1, Low: math.Exp(-half), High: math.Exp(half)}), nil
	case nc >= 2:
		return math.NaN(), nil
	}
	c, err := JudgeSamples(g, bs, bs, opt)
	if err != nil {
		return math.NaN(), err
	}
	return c.MDC, nil
}
