package comparison

import (
	"fmt"
	"slices"

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

// Pair is one point measured on both sides, each side its runs (repeats,
// or the runs of a baseline history).
type Pair struct {
	Experiment, Label   string
	Baseline, Candidate []metrics.RunData
	// Components gives each side's runs of one dataset component, for a
	// metric named "ttft.p99@component=chat"; nil when the point has none.
	Components func(name string) (baseline, candidate []metrics.RunData, err error)
	// Gates are the candidate's own baseline gates at this point, judged
	// as the point's family when no --metrics are named: the run's gates
	// and `llmbench compare` then reach the same verdicts.
	Gates []metrics.Gate
}

// Options are what a comparison judges with.
type Options struct {
	// Metrics (--metrics) are judged as each point's family, at
	// Tolerance or their own; none names the candidate's baseline gates,
	// or DefaultMetrics when it has none.
	Metrics []string
	// Tolerance is the default --max-regression, a fraction.
	Tolerance float64
	// Tolerances overrides it per metric (--max-regression itl.p99=5%).
	Tolerances map[string]float64
	Judge      metrics.JudgeOptions
}

// DefaultOptions: DefaultMetrics at 10%, the judge's defaults.
func DefaultOptions() Options {
	return Options{Tolerance: 0.10, Judge: metrics.DefaultJudgeOptions()}
}

// Build judges every pair (metrics.JudgePoint): the family (the named
// metrics, else the candidate's baseline gates, else DefaultMetrics) with
// Holm over it, and DefaultMetrics the family leaves out apart, as
// informational.
func Build(baseline, candidate string, pairs []Pair, opt Options) (*Report, error) {
	r := &Report{Baseline: baseline, Candidate: candidate, Tolerance: opt.Tolerance, Confidence: opt.Judge.Confidence}
	for _, p := range pairs {
		family, informational, err := questions(p, opt)
		if err != nil {
			return nil, err
		}
		j := metrics.JudgePoint(family, informational, p.runs, opt.Judge)
		point := Point{Experiment: p.Experiment, Label: p.Label}
		for _, x := range j.Gated {
			if x.Err != nil {
				return nil, fmt.Errorf("%s/%s: %s: %w", p.Experiment, p.Label, x.Metric, x.Err)
			}
			point.Metrics = append(point.Metrics, x.Comparison)
		}
		for _, x := range j.Informational {
			if x.Err == nil { // informational: what cannot be measured is left out
				point.Metrics = append(point.Metrics, x.Comparison)
			}
		}
		r.Points = append(r.Points, point)
		if w := j.Warning(); w != "" && !slices.Contains(r.Warnings, w) {
			r.Warnings = append(r.Warnings, w)
		}
		if w := metrics.CacheShareWarning(p.Baseline, p.Candidate); w != "" {
			r.Warnings = append(r.Warnings, point.name()+": "+w)
		}
	}
	return r, nil
}

// questions are the gates a pair is judged on: the family, and the
// default metrics it leaves out as informational.
func questions(p Pair, opt Options) (family, informational []metrics.Gate, err error) {
	switch {
	case len(opt.Metrics) > 0:
		family, err = gatesOf(opt.Metrics, opt)
		return family, nil, err
	case len(p.Gates) > 0:
		family = p.Gates
	default:
		family, err = gatesOf(DefaultMetrics, opt)
		return family, nil, err
	}
	for _, name := range DefaultMetrics {
		if slices.ContainsFunc(family, func(g metrics.Gate) bool { return g.Name() == name && g.Component == "" }) {
			continue
		}
		g, err := metrics.BaselineGate(name, opt.tolerance(name))
		if err != nil {
			return nil, nil, err
		}
		informational = append(informational, g)
	}
	return family, informational, nil
}

// gatesOf asks each named metric at its tolerance.
func gatesOf(names []string, opt Options) ([]metrics.Gate, error) {
	gates := make([]metrics.Gate, len(names))
	for i, name := range names {
		g, err := metrics.BaselineGate(name, opt.tolerance(name))
		if err != nil {
			return nil, err
		}
		gates[i] = g
	}
	return gates, nil
}

func (opt Options) tolerance(name string) float64 {
	if tol, ok := opt.Tolerances[name]; ok {
		return tol
	}
	return opt.Tolerance
}

// runs gives both sides' runs of the pair as a gate judges them: the
// whole point or one dataset component.
func (p Pair) runs(g metrics.Gate) ([]metrics.RunData, []metrics.RunData, error) {
	if g.Component == "" {
		return p.Baseline, p.Candidate, nil
	}
	if p.Components == nil {
		return nil, nil, fmt.Errorf("the point has no dataset components")
	}
	return p.Components(g.Component)
}
