package comparison

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/reports/verdict"
)

// SchemaVersion is compare.json's schema; docs/compare.md describes it.
// Version 2: the interval holds two one-sided bounds (null when one does
// not exist), and each metric carries the judge's Judgement (mdc,
// adjustment, informational, unbounded, baseline_runs, candidate_runs).
const SchemaVersion = 2

// File is compare.json: a comparison in report units, as programs read
// it and as the HTML report of a run with a baseline shows it (read back
// by ReadJSON when the report is rebuilt). Regressions and Inconclusive
// count the gated metrics only: an informational one fails nothing.
type File struct {
	Schema       int         `json:"schema"`
	Baseline     string      `json:"baseline"`
	Candidate    string      `json:"candidate"`
	Tolerance    float64     `json:"tolerance"`
	Confidence   float64     `json:"confidence"`
	Regressions  int         `json:"regressions"`
	Inconclusive int         `json:"inconclusive"`
	Points       []FilePoint `json:"points"`
	Unmatched    []string    `json:"unmatched"`
	Warnings     []string    `json:"warnings"`
	// ChangePoints are the shifts of level over the history this
	// comparison is the newest of; absent for a comparison alone. Added
	// within schema 2: a field a reader of version 2 may ignore.
	ChangePoints *FileChangePoints `json:"change_points,omitempty"`
}

// FileChangePoints is ChangePoints in compare.json: the detector's
// settings, how many runs it searched, and what it found.
type FileChangePoints struct {
	Method       string      `json:"method"`
	Runs         int         `json:"runs"`
	MaxPValue    float64     `json:"max_p_value"`
	MinMagnitude float64     `json:"min_magnitude"`
	Window       int         `json:"window"`
	Found        []FileShift `json:"found"`
}

// FileShift is one change point: the levels before and after in report
// units (unit), the change relative (0.12 is 12% higher; null from a
// level of 0), the run from which the new level holds (its path, and its
// place among the runs searched, the oldest 0).
type FileShift struct {
	Experiment string        `json:"experiment"`
	Point      string        `json:"point"`
	Metric     string        `json:"metric"`
	Unit       string        `json:"unit"`
	Run        string        `json:"run"`
	RunIndex   int           `json:"run_index"`
	Before     float64       `json:"before"`
	After      float64       `json:"after"`
	Change     verdict.Bound `json:"change"`
	PValue     float64       `json:"p_value"`
}

type FilePoint struct {
	Experiment string       `json:"experiment"`
	Point      string       `json:"point"`
	Metrics    []FileMetric `json:"metrics"`
}

// FileMetric is one comparison; values are in report units (unit), the
// change and the one-sided bounds are relative (0.12 is 12% higher), null
// when infinite (a change from 0, such as error_rate's from a clean
// baseline) or, for a bound, when it does not exist (Unbounded says why).
type FileMetric struct {
	Metric      string           `json:"metric"`
	Direction   string           `json:"direction"`
	Unit        string           `json:"unit"`
	Baseline    float64          `json:"baseline"`
	Candidate   float64          `json:"candidate"`
	Change      verdict.Bound    `json:"change"`
	Interval    verdict.Interval `json:"interval"`
	Method      string           `json:"method"`
	Tolerance   float64          `json:"tolerance"`
	Verdict     string           `json:"verdict"`
	PRegression float64          `json:"p_regression"`
	verdict.Judgement
}

// JSON is compare.json.
func JSON(r *Report) reports.Reporter {
	return func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(FileOf(r))
	}
}

// FileOf is r as compare.json holds it.
func FileOf(r *Report) *File {
	f := &File{Schema: SchemaVersion, Baseline: r.Baseline, Candidate: r.Candidate, Tolerance: r.Tolerance,
		Confidence: r.Confidence, Regressions: r.Count(metrics.VerdictRegression),
		Inconclusive: r.Count(metrics.VerdictInconclusive), Points: []FilePoint{},
		Unmatched: nonNil(r.Unmatched), Warnings: nonNil(r.Warnings)}
	for _, p := range r.Points {
		pj := FilePoint{Experiment: p.Experiment, Point: p.Label, Metrics: []FileMetric{}}
		for _, c := range p.Metrics {
			pj.Metrics = append(pj.Metrics, metricOf(c))
		}
		f.Points = append(f.Points, pj)
	}
	f.ChangePoints = changePointsOf(r.History)
	return f
}

func changePointsOf(cp *ChangePoints) *FileChangePoints {
	if cp == nil {
		return nil
	}
	out := &FileChangePoints{Method: "e-divisive-means-t-test", Runs: cp.Runs, MaxPValue: cp.Options.MaxPValue,
		MinMagnitude: cp.Options.MinMagnitude, Window: cp.Options.Window, Found: []FileShift{}}
	for _, s := range cp.Found {
		before, unit := metrics.InReportUnits(s.Metric, s.Before)
		after, _ := metrics.InReportUnits(s.Metric, s.After)
		out.Found = append(out.Found, FileShift{Experiment: s.Experiment, Point: s.Point, Metric: s.Metric, Unit: unit,
			Run: s.RunPath, RunIndex: cp.seriesIndex(s), Before: before, After: after, Change: verdict.Bound(s.Change()),
			PValue: s.PValue})
	}
	return out
}

// ReadJSON reads compare.json back, refusing another schema.
func ReadJSON(r io.Reader) (*File, error) {
	var f File
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, fmt.Errorf("compare.json: %w", err)
	}
	switch {
	case f.Schema < SchemaVersion:
		return nil, fmt.Errorf("compare.json: schema %d, want %d: an older llmbench wrote it (two-sided intervals, no minimum detectable change); run llmbench compare again to rewrite it",
			f.Schema, SchemaVersion)
	case f.Schema != SchemaVersion:
		return nil, fmt.Errorf("compare.json: schema %d, want %d: a newer llmbench wrote it", f.Schema, SchemaVersion)
	}
	return &f, nil
}

func metricOf(c metrics.Comparison) FileMetric {
	base, unit := metrics.InReportUnits(c.Metric, c.Baseline)
	cand, _ := metrics.InReportUnits(c.Metric, c.Candidate)
	return FileMetric{Metric: c.Metric, Direction: c.Direction.String(), Unit: unit, Baseline: base, Candidate: cand,
		Change: verdict.Bound(c.Interval.Ratio - 1), Interval: verdict.NewInterval(c.Interval.Low, c.Interval.High),
		Method: string(c.Interval.Method), Tolerance: c.Tolerance, Verdict: string(c.Verdict), PRegression: c.PRegression,
		Judgement: verdict.JudgementOf(c)}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
