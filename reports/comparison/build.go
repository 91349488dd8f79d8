package comparison

import (
	"fmt"

	"github.com/llmbench/llmbench/metrics"
)

// DefaultMetrics are compared when --metrics names none: the headline
// metrics (metrics.Headline) a single run can be compared on, which leaves
// out request_goodput (repeats only, and absent without SLOs).
var DefaultMetrics = defaultMetrics()

func defaultMetrics() []string {
	var names []string
	for _, g := range metrics.Headline() {
		if g.Metric.HasSeries() {
			names = append(names, g.Name())
		}
	}
	return names
}

// Pair is one point measured on both sides, each side its runs (repeats).
type Pair struct {
	Experiment, Label   string
	Baseline, Candidate []metrics.RunData
	// Components gives each side's runs of one dataset component, for a
	// metric named "ttft.p99@component=chat"; nil when the point has none.
	Components func(name string) (baseline, candidate []metrics.RunData, err error)
}

// Options are what a comparison judges with.
type Options struct {
	Metrics []string
	// Tolerances overrides the default tolerance per metric
	// (--max-regression itl.p99=5%).
	Tolerances map[string]float64
	metrics.CompareOptions
}

// Build compares every metric at every pair and judges each point's
// metrics as one family (Holm), so comparing eight metrics does not raise
// the chance of a false alarm eightfold.
func Build(baseline, candidate string, pairs []Pair, opt Options) (*Report, error) {
	names := opt.Metrics
	if len(names) == 0 {
		names = DefaultMetrics
	}
	r := &Report{Baseline: baseline, Candidate: candidate, Tolerance: opt.Tolerance, Confidence: opt.Confidence}
	for _, p := range pairs {
		var cs []metrics.Comparison
		for _, name := range names {
			c, err := compareOne(name, p, opt)
			if err != nil {
				return nil, fmt.Errorf("%s/%s: %w", p.Experiment, p.Label, err)
			}
			cs = append(cs, c)
		}
		point := Point{Experiment: p.Experiment, Label: p.Label}
		for _, f := range metrics.JudgeFamily(cs, opt.Confidence) {
			point.Metrics = append(point.Metrics, f.Comparison)
		}
		r.Points = append(r.Points, point)
	}
	if w := singleRunWarning(r); w != "" {
		r.Warnings = append(r.Warnings, w)
	}
	return r, nil
}

// singleRunWarning says when a comparison rests on one run per side: its
// intervals see the noise within each run, not between runs, which
// bench/calibrate measured as 4% false alarms at tolerance 0 against the
// simulator and 12.5% at 10% against a real server on a busy machine
// (docs/compare.md).
func singleRunWarning(r *Report) string {
	for _, c := range r.all() {
		if c.Interval.Method == metrics.MethodBlockBootstrap {
			return "one run per side: the intervals see the noise within each run, not between runs " +
				"(on a busy machine identical runs were called regressions in 12.5% of pairs even at 10% tolerance: docs/compare.md); " +
				"measure repeats=3 on both sides for a gate you can trust"
		}
	}
	return ""
}

// compareOne compares one metric at a pair: of the whole point, or of one
// dataset component ("ttft.p99@component=chat").
func compareOne(name string, p Pair, opt Options) (metrics.Comparison, error) {
	metric, component, err := metrics.SplitComponent(name)
	if err != nil {
		return metrics.Comparison{}, err
	}
	baseRuns, candRuns := p.Baseline, p.Candidate
	if component != "" {
		if p.Components == nil {
			return metrics.Comparison{}, fmt.Errorf("%s: the point has no dataset components", name)
		}
		if baseRuns, candRuns, err = p.Components(component); err != nil {
			return metrics.Comparison{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	base, err := metrics.SampleOf(metric, baseRuns)
	if err != nil {
		return metrics.Comparison{}, fmt.Errorf("baseline: %w", err)
	}
	cand, err := metrics.SampleOf(metric, candRuns)
	if err != nil {
		return metrics.Comparison{}, fmt.Errorf("candidate: %w", err)
	}
	o := opt.CompareOptions
	if tol, ok := opt.Tolerances[name]; ok {
		o.Tolerance = tol
	}
	c, err := metrics.Compare(metric, base, cand, o)
	c.Metric = name
	return c, err
}
