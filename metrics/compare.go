package metrics

import (
	"errors"
	"fmt"
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

// The five verdicts. Only VerdictRegression fails a pipeline by default.
const (
	// VerdictRegression: the candidate is confidently worse than the
	// baseline by more than the tolerance.
	VerdictRegression Verdict = "regression"
	// VerdictImprovement: the candidate is confidently better.
	VerdictImprovement Verdict = "improvement"
	// VerdictNoChange: the candidate is confidently not worse by more than
	// the tolerance, and no change is real.
	VerdictNoChange Verdict = "no significant change"
	// VerdictWithinTolerance: a real change (either way), but smaller
	// than the tolerance, which it is confidently within.
	VerdictWithinTolerance Verdict = "within tolerance"
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

// Sample is one side (baseline or candidate) of the comparison of one
// metric: each run's value (the spread between them is the judge's noise
// when there are three runs or more in all), and one run's per-request
// values (the noise within a run, when each side has one).
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
	// PRegression is the one-sided p-value of H0 "no worse than no
	// change" (than the limit, for a negative tolerance), and
	// PImprovement of H0 "no better", each Holm-adjusted over the point's
	// family (decideFamily): a regression is real when PRegression ≤ α.
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
