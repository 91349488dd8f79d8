// Package regression compares result sets the way `llmbench compare`
// does — matched, checked for comparability, every pair judged — and a
// finished run with its experiments' baselines. It joins resultset (what
// was measured) and comparison (what the statistics concluded).
package regression

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/resultset"
)

// Sets compares two result sets as `llmbench compare` does: their points
// matched (resultset.Match), refused when not comparable unless force
// (each difference then a warning), every pair compared (Build), and the
// points found on one side only listed.
func Sets(base, cand *resultset.Set, opt comparison.Options, force bool) (*comparison.Report, error) {
	m := resultset.Match(base, cand)
	diffs, err := resultset.Check(m, resultset.CheckOptions{Force: force})
	if err != nil {
		return nil, err
	}
	pairs := make([]comparison.Pair, len(m.Pairs))
	for i, p := range m.Pairs {
		pairs[i] = comparison.Pair{Experiment: p.Baseline.Experiment, Label: p.Baseline.Label(),
			Baseline: p.Baseline.Runs(), Candidate: p.Candidate.Runs(), Components: componentRuns(p)}
	}
	r, err := comparison.Build(base.Path, cand.Path, pairs, opt)
	if err != nil {
		return nil, err
	}
	for _, d := range diffs {
		r.Warnings = append(r.Warnings, d.String())
	}
	for _, p := range m.OnlyBaseline {
		r.Unmatched = append(r.Unmatched, p.Name()+" (baseline only)")
	}
	for _, p := range m.OnlyCandidate {
		r.Unmatched = append(r.Unmatched, p.Name()+" (candidate only)")
	}
	return r, nil
}

// AgainstBaselines compares a finished run, loaded as a result set, with
// the baseline of each of its experiments that has one, as `llmbench
// compare BASELINE OUT` would for that experiment: the comparison a run
// with a baseline shows in its report. Differences found only now
// (sequence lengths, token counting) are warnings: what would make the
// runs incomparable was refused before the run. Nil when no experiment
// has a baseline.
func AgainstBaselines(run *resultset.Set, b *resultset.Baselines, opt comparison.Options) (*comparison.Report, error) {
	var out *comparison.Report
	var paths []string
	for _, name := range run.Experiments() {
		base, ok := b.ByExperiment[name]
		if !ok {
			continue
		}
		r, err := Sets(base.Only(name), run.Only(name), opt, true)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = r
		} else {
			out.Points = append(out.Points, r.Points...)
			out.Warnings = append(out.Warnings, r.Warnings...)
			out.Unmatched = append(out.Unmatched, r.Unmatched...)
		}
		if !slices.Contains(paths, base.Path) {
			paths = append(paths, base.Path)
		}
	}
	if out != nil {
		out.Baseline = strings.Join(paths, ", ")
	}
	return out, nil
}

// componentRuns gives both sides' runs of one dataset component, refusing
// a component a side never sent.
func componentRuns(p resultset.Pair) func(string) ([]metrics.RunData, []metrics.RunData, error) {
	return func(name string) ([]metrics.RunData, []metrics.RunData, error) {
		for _, side := range []*resultset.Point{p.Baseline, p.Candidate} {
			if !side.HasComponent(name) {
				return nil, nil, fmt.Errorf("%s has no requests of dataset component %q (it has %s)", side.Name(), name, side.ComponentNames())
			}
		}
		return p.Baseline.ComponentRuns(name), p.Candidate.ComponentRuns(name), nil
	}
}
