package comparison

import (
	"fmt"

	"github.com/llmbench/llmbench/metrics"
)

// ChangePoints are the shifts of level found over a history of runs
// (metrics.DetectChangePoints: E-divisive means with Hunter's t-test): what
// `llmbench compare BASE RUN...` with several runs and `llmbench history
// DIR` add to the newest comparison, so its trend table, compare.json,
// Markdown summary and trend plots mark them.
type ChangePoints struct {
	// Runs is how many runs the series held (the baseline among them when
	// it is the history's oldest run, as in `llmbench history`).
	Runs int
	// BaselineIsRun says the baseline is the series' first run.
	BaselineIsRun bool
	// Options are the detector's: its significance and minimum magnitude.
	Options metrics.ChangePointOptions
	// Found are the shifts, in point and metric order, oldest first.
	Found []Shift
}

// Shift is one change point: at one point and metric, the run from which
// the values moved to a new level.
type Shift struct {
	Experiment, Point, Metric string
	// Run indexes the history's comparisons (its candidates, oldest
	// first): the first run at the new level. RunPath names it.
	Run     int
	RunPath string
	// Before and After are the levels either side (means of the runs'
	// values back to the previous change point and up to the next), in
	// native units (ns for times) as metrics.Comparison holds values.
	Before, After float64
	// PValue is the t-test's between the two segments.
	PValue float64
}

// Change is the shift relative to the level before it.
func (s Shift) Change() float64 { return s.After/s.Before - 1 }

// FindChangePoints searches every point and metric of a history (the
// comparisons of runs with one baseline, in run order) for shifts of
// level in the runs' values. With baselineIsRun the baseline is the
// history's oldest run (`llmbench history`), its value the series' first;
// otherwise it is a reference apart, and only the runs form the series.
// A run that did not measure a point (or has no finite value for a
// metric) is left out of that point's series.
func FindChangePoints(history []*Report, baselineIsRun bool, opt metrics.ChangePointOptions) (*ChangePoints, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	out := &ChangePoints{Runs: len(history), BaselineIsRun: baselineIsRun, Options: opt}
	if baselineIsRun {
		out.Runs++
	}
	for _, p := range trendPoints(history) {
		for _, c := range p.Metrics {
			values, runs := seriesOf(history, p, c, baselineIsRun)
			found, err := metrics.DetectChangePoints(values, opt)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", p.name(), c.Metric, err)
			}
			for _, f := range found {
				run := runs[f.Index]
				out.Found = append(out.Found, Shift{Experiment: p.Experiment, Point: p.Label, Metric: c.Metric, Run: run,
					RunPath: history[run].Candidate, Before: f.Before, After: f.After, PValue: f.PValue})
			}
		}
	}
	return out, nil
}

// seriesOf is metric c's value at point p in each run that measured it,
// oldest first, and the index of each in history (−1 for the baseline
// when it leads the series).
func seriesOf(history []*Report, p Point, c metrics.Comparison, baselineIsRun bool) (values []float64, runs []int) {
	if baselineIsRun {
		values, runs = append(values, c.Baseline), append(runs, -1)
	}
	for i, r := range history {
		if rc, ok := metricAt(r, p, c.Metric); ok && finite(rc.Candidate) {
			values, runs = append(values, rc.Candidate), append(runs, i)
		}
	}
	if baselineIsRun && !finite(c.Baseline) {
		values, runs = values[1:], runs[1:]
	}
	return values, runs
}

// seriesIndex is shift s's run's place among the series' runs, the
// oldest 0.
func (cp *ChangePoints) seriesIndex(s Shift) int {
	if cp.BaselineIsRun {
		return s.Run + 1
	}
	return s.Run
}

// at are the shifts of metric at point p.
func (cp *ChangePoints) at(p Point, metric string) []Shift {
	if cp == nil {
		return nil
	}
	var out []Shift
	for _, s := range cp.Found {
		if s.Experiment == p.Experiment && s.Point == p.Label && s.Metric == metric {
			out = append(out, s)
		}
	}
	return out
}

// Method names the detector and its settings in words, for the line
// above a list of change points.
func (cp *ChangePoints) Method() string {
	return fmt.Sprintf("E-divisive means, t-test p ≤ %g, shifts of %s or more, over %d runs",
		cp.Options.MaxPValue, Percent(cp.Options.MinMagnitude), cp.Runs)
}

// describe is a shift in words: "tue: 10.2 ms → 11.5 ms (+12.7%, p = 0.0004)".
func (s Shift) describe(runName string) string {
	return fmt.Sprintf("%s %s from %s: %s → %s (%s, p = %s)", s.pointName(), s.Metric, runName,
		value(s.Metric, s.Before), value(s.Metric, s.After), change(s.After/s.Before), pValue(s.PValue))
}

func (s Shift) pointName() string {
	return Point{Experiment: s.Experiment, Label: s.Point}.name()
}

// pValue prints a p-value with two significant digits, "< 1e-12" below
// what a double resolves of a t tail.
func pValue(p float64) string {
	if p < 1e-12 {
		return "< 1e-12"
	}
	return fmt.Sprintf("%.2g", p)
}
