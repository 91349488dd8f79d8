package html

import (
	"fmt"

	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/verdict"
)

// comparisonView is the run compared with its baseline, as compare.json
// has it: one row per point and metric, regressions first.
type comparisonView struct {
	Baseline, Candidate string
	Level, Tolerance    string
	Regressions         int
	Inconclusive        int
	Rows                []comparisonRow
	Notes               []string
}

type comparisonRow struct {
	Point, Metric, Baseline, Candidate, Change, Interval, Method, Verdict, Class string
}

// newComparisonView orders the rows regressions first, then inconclusive
// ones, so what needs attention leads, as compare's Markdown does.
func newComparisonView(f *comparison.File) *comparisonView {
	if f == nil {
		return nil
	}
	v := &comparisonView{Baseline: f.Baseline, Candidate: f.Candidate, Level: comparison.Percent(f.Confidence),
		Tolerance: comparison.Percent(f.Tolerance), Regressions: f.Regressions, Inconclusive: f.Inconclusive}
	rank := map[string]int{"regression": 0, "inconclusive": 1, "improvement": 2}
	var rows [4][]comparisonRow
	for _, p := range f.Points {
		point := p.Point
		if p.Experiment != "" {
			point = p.Experiment + "/" + p.Point
		}
		for _, m := range p.Metrics {
			r, ok := rank[m.Verdict]
			if !ok {
				r = 3
			}
			rows[r] = append(rows[r], comparisonRow{Point: point, Metric: m.Metric,
				Baseline: verdict.FormatValue(m.Baseline, m.Unit), Candidate: verdict.FormatValue(m.Candidate, m.Unit),
				Change: fmt.Sprintf("%+.1f%%", 100*m.Change), Method: m.Method, Verdict: m.Verdict,
				Interval: m.Interval.String(),
				Class:    map[int]string{0: "fail", 1: "warn", 2: "pass", 3: "muted"}[r]})
		}
	}
	for _, rs := range rows {
		v.Rows = append(v.Rows, rs...)
	}
	for _, u := range f.Unmatched {
		v.Notes = append(v.Notes, "unmatched: "+u)
	}
	v.Notes = append(v.Notes, f.Warnings...)
	return v
}
