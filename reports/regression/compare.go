// Package regression owns judging stored runs against each other: what
// `llmbench compare` does — points matched, checked for comparability,
// every pair judged — the comparison of a finished run with its
// experiments' baselines, and the baselines that baseline gates compare
// with (Baselines, attached to each experiment before it runs). It joins
// storedrun (what was measured) and comparison (what the statistics
// concluded).
package regression

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/runtime/failure"
)

// Sets compares two stored runs as `llmbench compare` does: their
// points matched (Match), refused when not comparable unless force (each
// difference then a warning), every pair compared (comparison.Build), and
// the points found on one side only listed. Both runs must be summarised
// (storedrun.Load); each pair's requests are read from its records when
// the pair is compared, so memory holds one pair's series at a time.
func Sets(base, cand *storedrun.Run, opt comparison.Options, force bool) (*comparison.Report, error) {
	m := Match(base, cand)
	diffs, err := Check(m, CheckOptions{Force: force})
	if err != nil {
		return nil, err
	}
	r, err := buildPairs(base.Path, cand.Path, m.Pairs, opt)
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

// buildPairs is comparison.Build of the pairs, one pair at a time: each
// side's runs read from its records, compared, and let go before the
// next pair is read. The reports of the pairs join into what one Build of
// them all gives: their points in order, each warning once.
func buildPairs(basePath, candPath string, pairs []Pair, opt comparison.Options) (*comparison.Report, error) {
	if len(pairs) == 0 {
		return comparison.Build(basePath, candPath, nil, opt)
	}
	var out *comparison.Report
	for _, p := range pairs {
		pair, err := comparisonPair(p, seriesMetrics(opt.Metrics, p.Candidate.BaselineGates))
		if err != nil {
			return nil, err
		}
		r, err := comparison.Build(basePath, candPath, []comparison.Pair{pair}, opt)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = r
			continue
		}
		out.Points = append(out.Points, r.Points...)
		for _, w := range r.Warnings {
			if !slices.Contains(out.Warnings, w) {
				out.Warnings = append(out.Warnings, w)
			}
		}
	}
	return out, nil
}

// comparisonPair reads both sides' runs of a matched pair.
func comparisonPair(p Pair, track []*metrics.Metric) (comparison.Pair, error) {
	base, err := p.Baseline.Runs(track, "")
	if err != nil {
		return comparison.Pair{}, err
	}
	cand, err := p.Candidate.Runs(track, "")
	if err != nil {
		return comparison.Pair{}, err
	}
	return comparison.Pair{Experiment: p.Baseline.Experiment, Label: p.Baseline.Label(),
		Baseline: base, Candidate: cand, Components: componentRuns(p, track), Gates: p.Candidate.BaselineGates}, nil
}

// seriesMetrics are the compared metrics that have per-request values,
// without their component: what each run's series keeps. They are the
// named ones, or the candidate's baseline gates' and
// comparison.DefaultMetrics when none is named.
func seriesMetrics(names []string, gates []metrics.Gate) []*metrics.Metric {
	var track []*metrics.Metric
	keep := func(m *metrics.Metric) {
		if m.HasSeries() && !slices.Contains(track, m) {
			track = append(track, m)
		}
	}
	if len(names) == 0 {
		names = comparison.DefaultMetrics
		for _, g := range gates {
			keep(g.Metric)
		}
	}
	for _, name := range names {
		metric, _, err := metrics.SplitComponent(name)
		if err != nil {
			continue
		}
		base, _, _ := strings.Cut(metric, ".") // the statistic is not kept
		if m, ok := metrics.Lookup(base); ok {
			keep(m)
		}
	}
	return track
}

// AgainstBaselines compares a finished run, loaded as a result set, with
// the baseline of each of its experiments that has one, as `llmbench
// compare BASELINE OUT` would for that experiment: the comparison a run
// with a baseline shows in its report. Differences found only now
// (sequence lengths, token counting) are warnings: what would make the
// runs incomparable was refused before the run. Nil when no experiment
// has a baseline.
func AgainstBaselines(run *storedrun.Run, b *Baselines, opt comparison.Options) (*comparison.Report, error) {
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
func componentRuns(p Pair, track []*metrics.Metric) func(string) ([]metrics.RunData, []metrics.RunData, error) {
	return func(name string) ([]metrics.RunData, []metrics.RunData, error) {
		for _, side := range []*storedrun.Point{p.Baseline, p.Candidate} {
			if !side.HasComponent(name) {
				return nil, nil, fmt.Errorf("%s has no requests of dataset component %q (it has %s)", side.Name(), name, side.ComponentNames())
			}
		}
		base, err := p.Baseline.Runs(track, name)
		if err != nil {
			return nil, nil, err
		}
		cand, err := p.Candidate.Runs(track, name)
		return base, cand, err
	}
}

// AgainstOldest compares every run of a history (oldest first) with the
// oldest, and finds the change points of the series (`llmbench history`);
// the reports are in time order, the newest holding the change points.
func AgainstOldest(runs []*storedrun.Run, opt comparison.Options, force bool, detect metrics.ChangePointOptions) ([]*comparison.Report, error) {
	history := make([]*comparison.Report, 0, len(runs)-1)
	for _, run := range runs[1:] {
		r, err := Sets(runs[0], run, opt, force)
		if err != nil {
			return nil, failure.Inputf("%w", err)
		}
		history = append(history, r)
	}
	newest := history[len(history)-1]
	var err error
	if newest.History, err = comparison.FindChangePoints(history, true, detect); err != nil {
		return nil, failure.Runf("change points: %w", err)
	}
	return history, nil
}

// Warnings are a history's comparisons' warnings and unmatched points,
// each once however many runs share it (the trend table shows neither).
func Warnings(history []*comparison.Report) []string {
	var out []string
	for _, r := range history {
		msgs := slices.Clone(r.Warnings)
		for _, u := range r.Unmatched {
			msgs = append(msgs, fmt.Sprintf("%s: %s", r.Candidate, u))
		}
		for _, m := range msgs {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}
