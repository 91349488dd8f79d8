package html

import (
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/verdict"
)

// comparisonView is the run compared with its baseline, as compare.json
// has it: one row per point and metric, regressions first, the
// informational metrics in a table of their own.
type comparisonView struct {
	Baseline, Candidate string
	Level               string
	// Regressions and Inconclusive count the gated metrics: "1 regression".
	Regressions, Inconclusive string
	Failing, Doubtful         bool
	Rows, Informational       []comparisonRow
	InformationalLabel        string
	Notes                     []string
}

type comparisonRow struct {
	Point, Metric, Baseline, Candidate, Change, Bounds, Method, Tolerance, Detects, Verdict, Class string
}

// newComparisonView orders the rows regressions first, then inconclusive
// ones, so what needs attention leads, as compare's Markdown does.
func newComparisonView(f *comparison.File) *comparisonView {
	if f == nil {
		return nil
	}
	v := &comparisonView{Baseline: f.Baseline, Candidate: f.Candidate, Level: comparison.Percent(f.Confidence),
		Regressions: verdict.Plural(f.Regressions, "regression"), Inconclusive: fmt.Sprintf("%d inconclusive", f.Inconclusive),
		Failing: f.Regressions > 0, Doubtful: f.Inconclusive > 0, InformationalLabel: verdict.InformationalLabel}
	rank := map[string]int{"regression": 0, "inconclusive": 1, "improvement": 2}
	var rows, info [4][]comparisonRow
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
			row := comparisonRow{Point: point, Metric: m.Metric,
				Baseline: verdict.FormatValue(m.Baseline, m.Unit), Candidate: verdict.FormatValue(m.Candidate, m.Unit),
				Change: fmt.Sprintf("%+.1f%%", 100*m.Change), Method: m.Method, Tolerance: comparison.Percent(m.Tolerance),
				Detects: strings.TrimPrefix(m.Detects(), "detects "),
				Verdict: strings.TrimSpace(m.Verdict + " " + verdict.Notes(m.Adjustment)),
				Bounds:  m.Interval.Explained(m.Unbounded),
				Class:   map[int]string{0: "fail", 1: "warn", 2: "pass", 3: "muted"}[r]}
			if m.Informational {
				info[r] = append(info[r], row)
			} else {
				rows[r] = append(rows[r], row)
			}
		}
	}
	for r := range rows {
		v.Rows = append(v.Rows, rows[r]...)
		v.Informational = append(v.Informational, info[r]...)
	}
	for _, u := range f.Unmatched {
		v.Notes = append(v.Notes, "unmatched: "+u)
	}
	v.Notes = append(v.Notes, f.Warnings...)
	return v
}
