package metrics

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// This file is the statistical core of `llmbench compare` and of baseline
// gates (docs/compare.md, "Method"): for one metric of a baseline and a
// candidate it estimates the ratio candidate/baseline with a confidence
// interval and turns the interval into a verdict at a tolerance.

// Direction says which way a metric gets better.
type Direction int

// The directions of comparable metrics.
const (
	// LowerIsBetter: latencies, error_rate, energy and cost per token.
	LowerIsBetter Direction = iota + 1
	// HigherIsBetter: throughputs and goodput.
	HigherIsBetter
)

func (d Direction) String() string {
	switch d {
	case LowerIsBetter:
		return "lower is better"
	case HigherIsBetter:
		return "higher is better"
	}
	return "no direction"
}

// ErrNoDirection is returned for a metric that is neither better high nor
// better low (isl, osl, gpu_power, gpu_utilization): it can be shown but
// not judged.
var ErrNoDirection = errors.New("has no better direction to judge a change by")

// MetricDirection is the Direction of a metric named as gates write it
// ("ttft.p99", "itl", "error_rate", or a GenAI-Perf long name), with or
// without a dataset component. The statistic does not change the
// direction (a lower ttft.std is better too).
func MetricDirection(name string) (Direction, error) {
	name, _, err := SplitComponent(name)
	if err != nil {
		return 0, err
	}
	m, err := namedMetric(name)
	if err != nil {
		return 0, err
	}
	if m.Direction == 0 {
		return 0, fmt.Errorf("%s %w", m.Name, ErrNoDirection)
	}
	return m.Direction, nil
}

// namedMetric is the gate metric of a name as gates write it, whatever
// statistic follows the dot.
func namedMetric(name string) (*Metric, error) {
	base, _, _ := strings.Cut(name, ".")
	m := lookupGated(base)
	if m == nil {
		return nil, fmt.Errorf("unknown metric %q, want %s", base, gatedList())
	}
	return m, nil
}

// componentPrefix introduces the dataset component a compared metric is
// judged on, as in a gate's "@ component=chat".
const componentPrefix = "@" + componentKey + "="

// SplitComponent splits a compared metric's name from the dataset
// component it is judged on: "ttft.p99@component=chat" is ttft.p99 of the
// requests of the mix() component chat, as a gate's "@ component=chat"
// judges it; a name without "@" is the whole point's.
func SplitComponent(name string) (metric, component string, err error) {
	metric, rest, ok := strings.Cut(name, "@")
	if !ok {
		return name, "", nil
	}
	component, ok = strings.CutPrefix("@"+rest, componentPrefix)
	if !ok || component == "" {
		return "", "", fmt.Errorf("%q: want METRIC[.STAT] or METRIC[.STAT]@component=NAME", name)
	}
	return metric, component, nil
}

// metricStatistic is the statistic a metric name asks for: the part after
// the dot normalised as gates do it (median is p50), "avg" when the name
// has none (a distribution's default, and the only one of run-level
// metrics, whose per-window or per-request values are averaged).
func metricStatistic(name string) (string, error) {
	_, stat, dotted := strings.Cut(name, ".")
	if !dotted {
		return "avg", nil
	}
	norm, msg := normalizeStat(stat)
	if msg != "" {
		return "", fmt.Errorf("%s: %s", name, msg)
	}
	return norm, nil
}

// Verdict is the judgement of one metric's change.
type Verdict string

// The four verdicts. Only VerdictRegression fails a pipeline by default.
const (
	// VerdictRegression: the candidate is confidently worse than the
	// baseline by more than the tolerance.
	VerdictRegression Verdict = "regression"
	// VerdictImprovement: the candidate is confidently better.
	VerdictImprovement Verdict = "improvement"
	// VerdictNoChange: the candidate is confidently not worse by more than
	// the tolerance, and not confidently better.
	VerdictNoChange Verdict = "no significant change"
	// VerdictInconclusive: the interval straddles the tolerance limit, too
	// wide to tell a regression beyond tolerance from none.
	VerdictInconclusive Verdict = "inconclusive"
)

// RegressionLimit is the ratio candidate/baseline at which a change
// becomes a regression beyond the tolerance tol (a fraction, 0.10 for
// 10%): 1 + tol for a lower-is-better metric (10% slower), 1 − tol for a
// higher-is-better one (10% less throughput).
func RegressionLimit(d Direction, tol float64) float64 {
	if d == HigherIsBetter {
		return 1 - tol
	}
	return 1 + tol
}

// Judge turns a confidence interval [lo, hi] of the ratio
// candidate/baseline into a verdict. With L = RegressionLimit(d, tol),
// for a lower-is-better metric:
//
//	regression            lo > L       (all of the interval beyond tolerance)
//	inconclusive          lo ≤ L < hi  (it straddles the limit)
//	improvement           hi < 1       (all of the interval better)
//	no significant change hi ≤ L       (none of it beyond tolerance)
//
// and mirrored for a higher-is-better metric (regression hi < L,
// improvement lo > 1, no significant change lo ≥ L). The rules are tried
// in this order, so each interval has exactly one verdict. At tol = 0 an
// interval containing 1 is inconclusive: pure significance. A negative
// tol demands an improvement (a baseline gate "ttft.p99 <= baseline *
// 0.9"); the order keeps an interval straddling that limit inconclusive.
// A NaN bound is inconclusive.
func Judge(d Direction, tol, lo, hi float64) Verdict {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return VerdictInconclusive
	}
	limit := RegressionLimit(d, tol)
	if d == HigherIsBetter {
		// Mirror: 1/ratio is lower-is-better, its limit 1/L.
		lo, hi, limit = 1/hi, 1/lo, 1/limit
	}
	switch {
	case lo > limit:
		return VerdictRegression
	case hi > limit:
		return VerdictInconclusive
	case hi < 1:
		return VerdictImprovement
	}
	return VerdictNoChange
}

// Sample is one side (baseline or candidate) of the comparison of one
// metric. Repeats, when both sides have at least two, are used; otherwise
// Values are bootstrapped.
type Sample struct {
	// Repeats holds the metric's value in each repeat of the point, in
	// native units (each repeat's ttft.p99, its output_token_throughput).
	Repeats []float64
	// Values holds the per-request values of one run in send-time order
	// (each request's TTFT; 1 or 0 per request for error_rate, failed or
	// not) or, for a whole-run rate, the per-window rates of WindowRates.
	// The metric's statistic is computed on them.
	Values []float64
}

// CompareOptions are the parameters of a comparison.
type CompareOptions struct {
	// Tolerance is the fraction by which the candidate may be worse before
	// it is a regression (0.10 for --max-regression 10%), in [0, 1).
	Tolerance float64
	// Confidence is the two-sided level of the interval; 0 (or anything
	// outside (0, 1)) means 0.95.
	Confidence float64
	// Bootstrap configures the method without repeats.
	Bootstrap BootstrapOptions
}

// DefaultCompareOptions: 10% tolerance, 95% confidence, the default
// bootstrap.
func DefaultCompareOptions() CompareOptions {
	return CompareOptions{Tolerance: 0.10, Confidence: 0.95, Bootstrap: DefaultBootstrapOptions()}
}

// Comparison is the comparison of one metric.
type Comparison struct {
	Metric    string
	Direction Direction
	// Baseline and Candidate are the metric's value on each side: the mean
	// of the repeats, or the statistic of the values.
	Baseline, Candidate float64
	// Interval is the ratio candidate/baseline with its confidence
	// interval and how it was obtained; Ratio − 1 is the relative change.
	Interval  RatioInterval
	Tolerance float64
	Verdict   Verdict
	// PRegression is the p-value of H0: "not worse than the regression
	// limit" (ratio ≤ 1 + tol, or ≥ 1 − tol for higher-is-better), and
	// PImprovement of H0: "not better" (ratio ≥ 1, or ≤ 1), each the
	// one-sided p-value doubled (RatioInterval.PAbove), so a regression
	// verdict at confidence 1 − α goes with PRegression ≤ α. JudgeFamily
	// adjusts both for the number of metrics judged (Holm).
	PRegression, PImprovement float64
	// Informational marks a metric judged apart from the point's gated
	// family: shown, labelled as such, never failing anything.
	Informational bool
	// Adjustment says how the family's multiplicity correction changed
	// the verdict ("regression → inconclusive after Holm over 4 gates");
	// "" when it did not.
	Adjustment string
	// MDC is the minimum detectable change of these samples: the smallest
	// relative change (a fraction, 0.12 for 12%) they could call real at
	// the judge's confidence; +Inf when no change could be.
	MDC float64
	// Unbounded says why a bound of the interval does not exist ("only 3
	// requests above p99"); "" when both bounds are finite.
	Unbounded string
	// BaselineRuns and CandidateRuns count the runs (repeats, or the
	// runs of a baseline history) each side was judged on.
	BaselineRuns, CandidateRuns int
}

// Compare compares one metric (named as gates name it) between a baseline
// and a candidate: by Welch's t on log repeat values when both sides have
// at least two repeats (WelchRatio), else by a moving-block bootstrap of
// the time-ordered values (BootstrapRatio). A metric that is 0 on both
// sides in every repeat (error_rate of healthy runs) has ratio 1 and a
// zero-width interval.
func Compare(metric string, baseline, candidate Sample, opt CompareOptions) (Comparison, error) {
	c := Comparison{Metric: metric, Tolerance: opt.Tolerance}
	if !(opt.Tolerance >= 0 && opt.Tolerance < 1) {
		return c, fmt.Errorf("%s: tolerance %v is outside [0, 1)", metric, opt.Tolerance)
	}
	if !(opt.Confidence > 0 && opt.Confidence < 1) {
		opt.Confidence = DefaultCompareOptions().Confidence
	}
	var err error
	if c.Direction, err = MetricDirection(metric); err != nil {
		return c, err
	}
	stat, err := metricStatistic(metric)
	if err != nil {
		return c, err
	}
	if c.Interval, err = ratioInterval(stat, baseline, candidate, opt); err != nil {
		return c, fmt.Errorf("%s: %w", metric, err)
	}
	c.Baseline, c.Candidate = c.Interval.Baseline, c.Interval.Candidate
	c.Verdict = Judge(c.Direction, opt.Tolerance, c.Interval.Low, c.Interval.High)
	c.PRegression, c.PImprovement = claimPValues(c.Direction, opt.Tolerance, c.Interval)
	return c, nil
}

// claimPValues are the p-values of the two claims a verdict can make: a
// regression beyond the tolerance (H0: not worse than the limit) and an
// improvement (H0: not better than the baseline), each ≤ α exactly when
// the interval at confidence 1 − α makes the claim.
func claimPValues(d Direction, tol float64, ri RatioInterval) (regression, improvement float64) {
	limit := RegressionLimit(d, tol)
	if d == HigherIsBetter {
		return ri.PBelow(limit), ri.PAbove(1)
	}
	return ri.PAbove(limit), ri.PBelow(1)
}

// ratioInterval picks the method: repeats when both sides have two, a
// bootstrap of the values, for the statistic stat, otherwise.
func ratioInterval(stat string, baseline, candidate Sample, opt CompareOptions) (RatioInterval, error) {
	if len(baseline.Repeats) >= 2 && len(candidate.Repeats) >= 2 {
		if allZero(baseline.Repeats) && allZero(candidate.Repeats) {
			return exactRatio(MethodWelch, 0, 0, opt.Confidence), nil
		}
		ri, err := WelchRatio(baseline.Repeats, candidate.Repeats, opt.Confidence)
		if err == nil || len(baseline.Values) == 0 || len(candidate.Values) == 0 {
			return ri, err
		}
		// A zero repeat (an error_rate of 0) has no log: use the values.
	}
	if len(baseline.Values) == 0 || len(candidate.Values) == 0 {
		return RatioInterval{}, errors.New("need two repeats or the per-request values on each side")
	}
	bo := opt.Bootstrap
	bo.Confidence = opt.Confidence
	return BootstrapRatio(baseline.Values, candidate.Values, stat, bo)
}

func allZero(values []float64) bool {
	for _, v := range values {
		if v != 0 {
			return false
		}
	}
	return true
}

// safeRatio is candidate/baseline with 0/0 = 1 (nothing changed: no
// errors before or after) and c/0 = +Inf for c > 0.
func safeRatio(baseline, candidate float64) float64 {
	switch {
	case baseline == 0 && candidate == 0:
		return 1
	case baseline == 0:
		return math.Inf(1)
	}
	return candidate / baseline
}
