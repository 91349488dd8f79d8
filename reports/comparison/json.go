package comparison

import (
	"encoding/json"
	"io"

	"github.com/llmbench/llmbench/metrics"
)

// SchemaVersion is compare.json's schema; docs/compare.md describes it.
const SchemaVersion = 1

type fileJSON struct {
	Schema       int         `json:"schema"`
	Baseline     string      `json:"baseline"`
	Candidate    string      `json:"candidate"`
	Tolerance    float64     `json:"tolerance"`
	Confidence   float64     `json:"confidence"`
	Regressions  int         `json:"regressions"`
	Inconclusive int         `json:"inconclusive"`
	Points       []pointJSON `json:"points"`
	Unmatched    []string    `json:"unmatched"`
	Warnings     []string    `json:"warnings"`
}

type pointJSON struct {
	Experiment string       `json:"experiment"`
	Point      string       `json:"point"`
	Metrics    []metricJSON `json:"metrics"`
}

// metricJSON is one comparison; values are in report units (unit), the
// change and interval bounds are relative (0.12 is 12% higher).
type metricJSON struct {
	Metric      string     `json:"metric"`
	Direction   string     `json:"direction"`
	Unit        string     `json:"unit"`
	Baseline    float64    `json:"baseline"`
	Candidate   float64    `json:"candidate"`
	Change      float64    `json:"change"`
	Interval    [2]float64 `json:"interval"`
	Method      string     `json:"method"`
	Tolerance   float64    `json:"tolerance"`
	Verdict     string     `json:"verdict"`
	PRegression float64    `json:"p_regression"`
}

// WriteJSON writes compare.json.
func WriteJSON(w io.Writer, r *Report) error {
	f := fileJSON{Schema: SchemaVersion, Baseline: r.Baseline, Candidate: r.Candidate, Tolerance: r.Tolerance,
		Confidence: r.Confidence, Regressions: r.Count(metrics.VerdictRegression),
		Inconclusive: r.Count(metrics.VerdictInconclusive), Points: []pointJSON{},
		Unmatched: nonNil(r.Unmatched), Warnings: nonNil(r.Warnings)}
	for _, p := range r.Points {
		pj := pointJSON{Experiment: p.Experiment, Point: p.Label, Metrics: []metricJSON{}}
		for _, c := range p.Metrics {
			pj.Metrics = append(pj.Metrics, metricOf(c))
		}
		f.Points = append(f.Points, pj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}

func metricOf(c metrics.Comparison) metricJSON {
	base, unit := metrics.InReportUnits(c.Metric, c.Baseline)
	cand, _ := metrics.InReportUnits(c.Metric, c.Candidate)
	return metricJSON{Metric: c.Metric, Direction: c.Direction.String(), Unit: unit, Baseline: base, Candidate: cand,
		Change: c.Interval.Ratio - 1, Interval: [2]float64{c.Interval.Low - 1, c.Interval.High - 1},
		Method: string(c.Interval.Method), Tolerance: c.Tolerance, Verdict: string(c.Verdict), PRegression: c.PRegression}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
