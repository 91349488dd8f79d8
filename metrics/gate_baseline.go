package metrics

import (
	"cmp"
	"fmt"
)

// CompareWithBaseline judges a baseline gate ("ttft.p99 <= baseline *
// 1.10") exactly as `llmbench compare` judges a metric: the ratio
// candidate/baseline of the gate's statistic with its confidence interval
// (Welch on repeats, else the block bootstrap), against the limit the
// gate's factor sets. The gate's operator gives the direction (< and <=
// say lower is better, > and >= higher), so a gate on a metric of no
// direction (osl.avg >= baseline * 0.95) is judged too, and the factor is
// the tolerance: 1.10 on <= is 10%, 0.95 on >= is 5%, 0.9 on <= demands a
// 10% improvement. A regression verdict fails the gate; an inconclusive
// one means the runs cannot tell. Judge the gates of one point together
// with JudgeFamily.
func (g Gate) CompareWithBaseline(baseline, candidate Sample, opt CompareOptions) (Comparison, error) {
	c := Comparison{Metric: g.Name()}
	if !g.Baseline {
		return c, fmt.Errorf("%s: not a baseline gate", g.Source)
	}
	switch g.Op {
	case "<", "<=":
		c.Direction, c.Tolerance = LowerIsBetter, g.Value-1
	case ">", ">=":
		c.Direction, c.Tolerance = HigherIsBetter, 1-g.Value
	default:
		return c, fmt.Errorf("%s: a baseline gate compares with <, <=, > or >=, got %s", g.Source, g.Op)
	}
	if !(opt.Confidence > 0 && opt.Confidence < 1) {
		opt.Confidence = DefaultCompareOptions().Confidence
	}
	var err error
	if c.Interval, err = ratioInterval(cmp.Or(g.Stat, "avg"), baseline, candidate, opt); err != nil {
		return c, fmt.Errorf("%s: %w", c.Metric, err)
	}
	c.Baseline, c.Candidate = c.Interval.Baseline, c.Interval.Candidate
	c.Verdict = Judge(c.Direction, c.Tolerance, c.Interval.Low, c.Interval.High)
	c.PRegression, c.PImprovement = claimPValues(c.Direction, c.Tolerance, c.Interval)
	return c, nil
}
