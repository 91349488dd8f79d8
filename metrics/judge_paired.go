package metrics

import (
	"math"
)

// MethodPairedRounds: Student's t on the per-round log ratios of an
// interleaved A/B run (SPEC §13 "Beyond sequential runs"): round i of
// the baseline is paired with round i of the candidate, sent next to it
// in time (ABBA order) or at the same time (duet), so whatever slowed
// the machine, the network or the server during that stretch slowed
// both and cancels in their ratio.
const MethodPairedRounds Method = "paired-rounds"

// pairedRatio bounds the ratio from paired rounds: baseline[i] was
// measured next to candidate[i].
//
// Method: d_i = ln candidate_i − ln baseline_i over n ≥ 2 pairs;
// d̄ their mean, s their standard deviation (n − 1), se = s/√n,
// df = n − 1; ratio = exp(d̄), bounds exp(d̄ ∓ t(level, df)·se). The
// p-value of H0 "ratio ≤ c" is P(T_df ≥ (d̄ − ln c)/se).
//
// Why it beats t-between-runs here: a slow drift of speed over the run
// adds the same amount to both logs of a pair, so it is not in d_i at
// all, while the unpaired test counts it as noise (or, with one run per
// side, as a change). In ABBA order a linear drift within a pair of
// rounds alternates sign from one pair to the next and cancels in d̄.
// Assumptions: pairs independent, d_i roughly normal.
func pairedRatio(baseline, candidate []float64, level float64) (RatioInterval, error) {
	x, okX := logs(baseline)
	y, okY := logs(candidate)
	if !okX || !okY {
		return RatioInterval{}, errNonPositive
	}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = y[i] - x[i]
	}
	n := float64(len(d))
	md := mean(d)
	df := n - 1
	se := math.Sqrt(squares(d, md)/df) / math.Sqrt(n)
	ri := RatioInterval{Method: MethodPairedRounds, Baseline: mean(baseline), Candidate: mean(candidate)}
	return ri.studentT(md, se, df, level), nil
}

// paired reports whether the runs are to be judged as pairs: asked for,
// and two or more rounds on each side, as many on both.
func (o JudgeOptions) paired(nb, nc int) bool {
	return o.Paired && nb == nc && nb >= 2
}
