package metrics

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strings"
)

// This file is the judge (docs/compare.md, "Method"; SPEC §13): the one
// function that decides, for the gated metrics of one point, whether the
// candidate got worse than the baseline by more than each gate's
// tolerance. Baseline gates, `llmbench compare`, compare.json and every
// report about a baseline are its output; nothing else judges.
//
// The question is one-sided. A regression is called when the change is
//
//   - material: the point estimate of the ratio candidate/baseline lies
//     beyond the gate's limit (1 + tolerance for a lower-is-better
//     metric), so a true change equal to the tolerance fails about half
//     the time and a larger one more often; and
//   - real: the one-sided lower confidence bound of the ratio excludes no
//     change (lies above 1), after Holm's correction over the point's
//     gated metrics, so identical servers almost never fail.
//
// The noise the bound sees depends on what was measured (ratioBounds):
// the spread between runs when either side has two or more (repeats, or
// a baseline history), else the noise within the single run of each side
// (order statistics for a percentile, a block bootstrap otherwise).

// JudgeOptions are what a judgment is made with.
type JudgeOptions struct {
	// Confidence is the level of each one-sided bound, 0.95 when outside
	// (0, 1): a regression is real when the lower bound at this level lies
	// above 1, so α = 1 − Confidence is the chance of calling identical
	// servers worse.
	Confidence float64
	// Bootstrap configures the within-run method for statistics that are
	// not percentiles.
	Bootstrap BootstrapOptions
	// Paired says the runs of the two sides are rounds of an interleaved
	// A/B run, baseline run i measured next to candidate run i: they are
	// judged by MethodPairedRounds (judge_paired.go).
	Paired bool
}

// DefaultJudgeOptions: one-sided 95%, the default bootstrap.
func DefaultJudgeOptions() JudgeOptions {
	return JudgeOptions{Confidence: 0.95, Bootstrap: DefaultBootstrapOptions()}
}

func (o JudgeOptions) alpha() float64 {
	if !(o.Confidence > 0 && o.Confidence < 1) {
		return 0.05
	}
	return 1 - o.Confidence
}

// PointRuns gives both sides' runs of one point as a gate judges them:
// the whole point, one dataset component of a mix, or one replica.
type PointRuns func(g Gate) (baseline, candidate []RunData, err error)

// Judged is one gate's judgment, or why it could not be judged.
type Judged struct {
	Gate Gate
	Comparison
	Err error
}

// Judgment is one point's: its gated metrics judged as one family, and
// informational metrics judged apart (each on its own, failing nothing).
type Judgment struct {
	Gated, Informational []Judged
}

// Warning says what a reader of the verdicts must know about their
// noise: with one run on each side the bounds see only the noise within
// each run, never the drift from run to run. "" otherwise.
func (j Judgment) Warning() string {
	for _, list := range [][]Judged{j.Gated, j.Informational} {
		for _, x := range list {
			if x.Err == nil && x.BaselineRuns == 1 && x.CandidateRuns == 1 {
				return "one run per side: run-to-run noise is unknown, so the bounds see only the noise within each run; " +
					"give a baseline folder of several runs (the last main-branch runs) or repeats = 3 for verdicts that account for it (docs/compare.md)"
			}
		}
	}
	return ""
}

// JudgePoint judges one point: every gate of family compared with the
// baseline and decided together (Holm over the family, so four gates do
// not quadruple the chance of a false failure), and every gate of
// informational decided on its own. Gates are baseline gates
// ("ttft.p99 <= baseline * 1.10"; BaselineGate builds one from a metric
// and a tolerance). A gate whose runs cannot be read or measured carries
// the error and takes no part in the family.
func JudgePoint(family, informational []Gate, runs PointRuns, opt JudgeOptions) Judgment {
	read := readOnce(runs)
	j := Judgment{Gated: judgeEach(family, read, opt), Informational: judgeEach(informational, read, opt)}
	decideFamily(j.Gated, opt.alpha())
	for i := range j.Informational {
		decideFamily(j.Informational[i:i+1], opt.alpha())
		j.Informational[i].Informational = true
	}
	return j
}

// readOnce reads each part of the point (component, replica) once,
// however many gates judge it.
func readOnce(runs PointRuns) PointRuns {
	type sides struct {
		base, cand []RunData
		err        error
	}
	seen := map[string]sides{}
	return func(g Gate) ([]RunData, []RunData, error) {
		key := g.Component
		if g.Replica != nil {
			key += fmt.Sprintf("\x00replica %d", *g.Replica)
		}
		s, ok := seen[key]
		if !ok {
			s.base, s.cand, s.err = runs(g)
			seen[key] = s
		}
		return s.base, s.cand, s.err
	}
}

func judgeEach(gates []Gate, runs PointRuns, opt JudgeOptions) []Judged {
	out := make([]Judged, len(gates))
	for i, g := range gates {
		out[i].Gate = g
		out[i].Comparison, out[i].Err = judgeGate(g, runs, opt)
	}
	return out
}

// judgeGate measures one gate's ratio with its bounds, before any
// decision.
func judgeGate(g Gate, runs PointRuns, opt JudgeOptions) (Comparison, error) {
	c, err := g.question()
	if err != nil {
		return c, err
	}
	base, cand, err := runs(g)
	if err != nil {
		return c, err
	}
	bs, err := g.Sample(base)
	if err != nil {
		return c, fmt.Errorf("baseline: %w", err)
	}
	cs, err := g.Sample(cand)
	if err != nil {
		return c, err
	}
	return boundSamples(c, g, bs, cs, opt)
}

// question is the comparison g asks for, before anything is measured:
// the metric as compare names it ("ttft.p99@component=chat"), which way
// is worse, and the tolerance.
func (g Gate) question() (Comparison, error) {
	c := Comparison{Metric: g.Name()}
	if g.Component != "" {
		c.Metric += componentPrefix + g.Component
	}
	var err error
	c.Direction, c.Tolerance, err = g.baselineQuestion()
	return c, err
}

// boundSamples fills c's ratio, bounds and what follows from them.
func boundSamples(c Comparison, g Gate, bs, cs Sample, opt JudgeOptions) (Comparison, error) {
	c.BaselineRuns, c.CandidateRuns = runsOf(bs), runsOf(cs)
	var err error
	if c.Interval, err = ratioBounds(cmp.Or(g.Stat, "avg"), bs, cs, opt); err != nil {
		return c, fmt.Errorf("%s: %w", c.Metric, err)
	}
	c.Baseline, c.Candidate = c.Interval.Baseline, c.Interval.Candidate
	c.Unbounded = c.Interval.Unbounded
	c.MDC = minimumDetectable(c.Direction, c.Interval)
	return c, nil
}

// JudgeSamples judges one baseline gate alone (a family of one) from
// both sides' samples: what a test or a calibration asks of the judge
// without runs to read.
func JudgeSamples(g Gate, baseline, candidate Sample, opt JudgeOptions) (Comparison, error) {
	c, err := g.question()
	if err != nil {
		return c, err
	}
	js := []Judged{{Gate: g}}
	if js[0].Comparison, err = boundSamples(c, g, baseline, candidate, opt); err != nil {
		return js[0].Comparison, err
	}
	decideFamily(js, opt.alpha())
	return js[0].Comparison, nil
}

// baselineQuestion is what a baseline gate asks: which way is worse, and
// by how much (a fraction) the candidate may be worse before it fails.
// The operator gives the direction (< and <= say lower is better), so a
// gate on a metric of no direction (osl.avg >= baseline * 0.95) is judged
// too: 1.10 on <= is a 10% tolerance, 0.95 on >= is 5%, 0.9 on <= demands
// a 10% improvement (a negative tolerance).
func (g Gate) baselineQuestion() (Direction, float64, error) {
	if !g.Baseline {
		return 0, 0, fmt.Errorf("%s: not a baseline gate", g.Source)
	}
	// Rounded to 12 places, so that 1.10 reads as a 10% tolerance and
	// not as 10.000000000000009%.
	round := func(x float64) float64 { return math.Round(x*1e12) / 1e12 }
	switch g.Op {
	case "<", "<=":
		return LowerIsBetter, round(g.Value - 1), nil
	case ">", ">=":
		return HigherIsBetter, round(1 - g.Value), nil
	}
	return 0, 0, fmt.Errorf("%s: a baseline gate compares with <, <=, > or >=, got %s", g.Source, g.Op)
}

// Tolerance is how much worse (a fraction) a baseline gate lets the
// candidate be: 0.10 for "<= baseline * 1.10"; 0 for any other gate.
func (g Gate) Tolerance() float64 {
	_, tol, err := g.baselineQuestion()
	if err != nil {
		return 0
	}
	return tol
}

// BaselineGate is the baseline gate that asks `llmbench compare`'s
// question of a metric named as gates name it ("ttft.p99",
// "itl.p50@component=chat") at a tolerance (0.10 for 10%): "ttft.p99 <=
// baseline * 1.10", or ">= baseline * 0.90" for a higher-is-better one.
func BaselineGate(name string, tolerance float64) (Gate, error) {
	if !(tolerance >= 0 && tolerance < 1) {
		return Gate{}, fmt.Errorf("%s: tolerance %v is outside [0, 1)", name, tolerance)
	}
	metric, component, err := SplitComponent(name)
	if err != nil {
		return Gate{}, err
	}
	d, err := MetricDirection(metric)
	if err != nil {
		return Gate{}, err
	}
	m, err := namedMetric(metric)
	if err != nil {
		return Gate{}, err
	}
	g := Gate{Metric: m, Baseline: true, Component: component, Op: "<=", Value: 1 + tolerance}
	if d == HigherIsBetter {
		g.Op, g.Value = ">=", 1-tolerance
	}
	if strings.Contains(metric, ".") {
		if g.Stat, err = metricStatistic(metric); err != nil {
			return Gate{}, err
		}
	}
	g.Source = fmt.Sprintf("%s %s baseline * %s", name, g.Op, formatFactor(g.Value))
	return g, nil
}

func formatFactor(v float64) string {
	return fmt.Sprintf("%.4g", v)
}

// decideFamily turns the bounds of a family's judged gates into
// verdicts. Each gate's claims are tested one-sided at α with Holm's
// step-down over the family (the gates that could be judged): "worse" at
// the regression claim's threshold, "better" at 1. A claim stands when it
// is material and its Holm-adjusted p-value is ≤ α. A material change
// that is real on its own but not after Holm is said in Adjustment.
func decideFamily(js []Judged, alpha float64) {
	var idx []int
	var pWorse, pBetter []float64
	for i := range js {
		if js[i].Err != nil {
			continue
		}
		w, b := claimPValues(js[i].Comparison)
		idx, pWorse, pBetter = append(idx, i), append(pWorse, w), append(pBetter, b)
	}
	holmWorse, holmBetter := HolmAdjust(pWorse), HolmAdjust(pBetter)
	for k, i := range idx {
		c := &js[i].Comparison
		c.PRegression, c.PImprovement = holmWorse[k], holmBetter[k]
		c.Verdict = verdict(*c, c.PRegression <= alpha, c.PImprovement <= alpha)
		if unadjusted := verdict(*c, pWorse[k] <= alpha, pBetter[k] <= alpha); unadjusted != c.Verdict {
			c.Adjustment = fmt.Sprintf("%s → %s after Holm over %d gates", unadjusted, c.Verdict, len(idx))
		}
	}
}

// claimPValues are the one-sided p-values of a comparison's two claims:
// worse (H0: the ratio is no worse than no change, or than the limit when
// the tolerance is negative and demands an improvement) and better (H0:
// no better than no change).
func claimPValues(c Comparison) (worse, better float64) {
	limit := RegressionLimit(c.Direction, c.Tolerance)
	if c.Direction == HigherIsBetter {
		return c.Interval.PBelow(math.Max(1, limit)), c.Interval.PAbove(1)
	}
	return c.Interval.PAbove(math.Min(1, limit)), c.Interval.PBelow(1)
}

// verdict is the decision rule, given whether each claim is real:
//
//	regression            material worse (ratio beyond the limit) and real
//	improvement           material better (beyond 1/limit, or any
//	                      improvement at tolerance 0) and real
//	inconclusive          otherwise, when the upper bound (lower for
//	                      higher-is-better) does not exclude a material
//	                      regression
//	within tolerance      otherwise, when a change either way is real
//	no significant change otherwise
func verdict(c Comparison, realWorse, realBetter bool) Verdict {
	ratio, hi := c.Interval.Ratio, c.Interval.High
	limit := RegressionLimit(c.Direction, c.Tolerance)
	if c.Direction == HigherIsBetter {
		// Mirror: 1/ratio is lower-is-better, its limit 1/limit, and the
		// bound that can exclude a regression the lower one.
		ratio, hi, limit = 1/ratio, 1/c.Interval.Low, 1/limit
	}
	switch {
	case math.IsNaN(ratio):
		return VerdictInconclusive
	case ratio > limit && realWorse:
		return VerdictRegression
	case ratio < 1/math.Max(limit, 1) && realBetter:
		return VerdictImprovement
	case !(hi <= limit):
		return VerdictInconclusive
	case realWorse || realBetter:
		return VerdictWithinTolerance
	}
	return VerdictNoChange
}

// minimumDetectable is the smallest change in the worse direction these
// samples could call real: how far the point estimate lies from its
// one-sided bound, as a fraction (exp(t·se) − 1 for the between-run
// method). +Inf when the bound does not exist; NaN from a baseline of 0
// (an error rate of 0), whose relative changes have no size.
func minimumDetectable(d Direction, ri RatioInterval) float64 {
	if ri.Baseline == 0 {
		return math.NaN() // a relative change from 0 has no size
	}
	if ri.detectable != nil {
		return ri.detectable(d)
	}
	if d == HigherIsBetter {
		if !(ri.High > 0) || math.IsInf(ri.High, 1) || !(ri.Ratio > 0) {
			return math.Inf(1)
		}
		return math.Max(0, 1-ri.Ratio/ri.High)
	}
	if !(ri.Low > 0) || math.IsInf(ri.Ratio, 1) {
		return math.Inf(1)
	}
	return math.Max(0, ri.Ratio/ri.Low-1)
}

// ErrNotComparable is wrapped by a judgment that has neither runs on
// both sides nor per-request values to bound.
var ErrNotComparable = errors.New("need two runs on one side or the per-request values on each side")

// runsOf is how many runs a sample holds: its runs' values, or one run
// given by its values alone.
func runsOf(s Sample) int {
	if len(s.Repeats) == 0 && len(s.Values) > 0 {
		return 1
	}
	return len(s.Repeats)
}
