package comparison

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/verdict"
)

// TrendSeries shapes a history for the trend plots: one plots.Trend per
// point and metric, every run's value with its one-sided confidence
// bounds in report units. The bounds are of the ratio candidate/baseline,
// so they are drawn scaled by the baseline value, [baseline·lo,
// baseline·hi]; a bound that does not exist leaves the run's bar open on
// that side (plots.TrendRun.OpenLow, OpenHigh, with why); the
// limit is baseline × RegressionLimit (1 + tolerance for lower-is-better,
// 1 − tolerance for higher-is-better). reports are the comparisons of the
// runs with one baseline, in run order (one report is a history of one
// run). Points come in the order the runs first measured them; a run
// that did not measure one keeps its place, not measured. Runs and the
// baseline are named by their last folder names, as few as tell them
// apart (runs/mon and runs/tue are "mon" and "tue"). Against a baseline
// of 0 (an error_rate) a ratio has no scale: the run is drawn without an
// interval. When the newest report carries change points (History),
// each trend gets its levels between them (plots.TrendLevel): the mean of
// the runs' values on each level, the baseline's among the first when it
// is the history's oldest run.
func TrendSeries(reports []*Report) []plots.Trend {
	if len(reports) == 0 {
		return nil
	}
	paths := []string{reports[0].Baseline}
	for _, r := range reports {
		paths = append(paths, r.Candidate)
	}
	names := runNames(paths)
	var out []plots.Trend
	for _, p := range trendPoints(reports) {
		for _, c := range p.Metrics {
			base, unit := metrics.InReportUnits(c.Metric, c.Baseline)
			t := plots.Trend{Experiment: p.Experiment, Point: p.Label, Metric: c.Metric, Unit: unit, Direction: c.Direction,
				Tolerance: c.Tolerance, Confidence: reports[0].Confidence, BaselineName: names[0], Baseline: base,
				Limit: base * metrics.RegressionLimit(c.Direction, c.Tolerance), Informational: c.Informational}
			for i, r := range reports {
				run := plots.TrendRun{Name: names[i+1]}
				if rc, ok := metricAt(r, p, c.Metric); ok {
					run.Measured, run.Verdict = true, rc.Verdict
					run.Value, _ = metrics.InReportUnits(rc.Metric, rc.Candidate)
					run.Low, run.High, run.OpenLow, run.OpenHigh = scaledBounds(rc.Interval, base, run.Value)
					run.Unbounded, run.Detects = rc.Unbounded, verdict.JudgementOf(rc).Detects()
				}
				t.Runs = append(t.Runs, run)
			}
			if cp := reports[len(reports)-1].History; cp != nil {
				t.Levels, t.ChangeMethod = levels(t, cp, cp.at(p, c.Metric)), cp.Method()
			}
			out = append(out, t)
		}
	}
	return out
}

// levels are trend t's levels between the change points shifts (of its
// point and metric, in run order): each level's runs and the mean of
// their values, in report units as t holds them.
func levels(t plots.Trend, cp *ChangePoints, shifts []Shift) []plots.TrendLevel {
	var out []plots.TrendLevel
	from, shift := 0, ""
	for i := 0; i <= len(shifts); i++ {
		to := len(t.Runs) - 1
		if i < len(shifts) {
			to = shifts[i].Run - 1
		}
		sum, n := 0.0, 0
		for _, r := range t.Runs[from : to+1] {
			if r.Measured {
				sum, n = sum+r.Value, n+1
			}
		}
		if from == 0 && cp.BaselineIsRun {
			sum, n = sum+t.Baseline, n+1
		}
		if n > 0 && to >= from { // a shift at the first run leaves the baseline alone on its level: its own line shows it
			out = append(out, plots.TrendLevel{From: from, To: to, Value: sum / float64(n), Shift: shift})
		}
		if i < len(shifts) {
			from, shift = shifts[i].Run, fmt.Sprintf("%s, p = %s", change(shifts[i].After/shifts[i].Before), pValue(shifts[i].PValue))
		}
	}
	return out
}

// scaledBounds are the ratio's one-sided bounds ri scaled by the
// baseline value base, a bound that does not exist (a lower one of 0, an
// upper one of +Inf) open and set to value. Against a baseline of 0 a
// ratio scales to nothing: both bounds are the value, closed.
func scaledBounds(ri metrics.RatioInterval, base, value float64) (low, high float64, openLow, openHigh bool) {
	if base == 0 || !finite(base) {
		return value, value, false, false
	}
	low, high = base*ri.Low, base*ri.High
	if !(ri.Low > 0) || !finite(low) {
		low, openLow = value, true
	}
	if !finite(high) {
		high, openHigh = value, true
	}
	return low, high, openLow, openHigh
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// trendPoints are the points any report measured, in the order the runs
// first measured them: a point the oldest run lacks still has a trend.
func trendPoints(reports []*Report) []Point {
	var out []Point
	for _, r := range reports {
		for _, p := range r.Points {
			if !slices.ContainsFunc(out, func(q Point) bool { return q.Experiment == p.Experiment && q.Label == p.Label }) {
				out = append(out, p)
			}
		}
	}
	return out
}

// metricAt is the comparison of metric at point p in report r, if r
// measured it.
func metricAt(r *Report, p Point, metric string) (metrics.Comparison, bool) {
	for _, q := range r.Points {
		if q.Experiment != p.Experiment || q.Label != p.Label {
			continue
		}
		for _, c := range q.Metrics {
			if c.Metric == metric {
				return c, true
			}
		}
	}
	return metrics.Comparison{}, false
}

// runNames names each path by its last components, as few as tell it
// apart from every other path; a generic file name (records.parquet,
// profile_export.json) is left out, its folder naming the run.
func runNames(paths []string) []string {
	parts := make([][]string, len(paths))
	for i, p := range paths {
		parts[i] = nameParts(p)
	}
	out := make([]string, len(paths))
	for i := range paths {
		for k := 1; k <= len(parts[i]); k++ {
			out[i] = strings.Join(tail(parts[i], k), "/")
			if !slices.ContainsFunc(parts, func(o []string) bool {
				return !slices.Equal(o, parts[i]) && slices.Equal(tail(o, k), tail(parts[i], k))
			}) {
				break
			}
		}
	}
	return out
}

// nameParts are a path's components, absolute (so "." has a name),
// without a generic file name at the end.
func nameParts(path string) []string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	parts := strings.FieldsFunc(filepath.ToSlash(path), func(r rune) bool { return r == '/' })
	if n := len(parts); n > 1 && (parts[n-1] == "records.parquet" || parts[n-1] == "profile_export.json") {
		parts = parts[:n-1]
	}
	if len(parts) == 0 {
		return []string{path}
	}
	return parts
}

// tail is the last k of parts, or all of them.
func tail(parts []string, k int) []string {
	return parts[max(0, len(parts)-k):]
}
