package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/sweep"
	"github.com/llmbench/llmbench/runtime"
)

// analyzeCSVName is GenAI-Perf's per-sweep file in --artifact-dir, beside
// llmbench's summary.json.
const analyzeCSVName = "analyze_export_genai_perf.csv"

// report writes the sweep's files and prints its table. It runs after an
// interrupt too, over the points that finished, so a stopped sweep still
// leaves a readable result; a resumed sweep rewrites them all. Sweep plots
// asked for that cannot be written are an error (exit 3), returned once
// everything else is written: a CI job that archives them must not pass
// with none.
func (c *analyzeCmd) report(e *env, plan *analyzePlan, res *runtime.ExperimentResult, cp *artifacts.SweepCheckpoint) error {
	dir := c.ArtifactDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	csvPath, summaryPath := filepath.Join(dir, analyzeCSVName), filepath.Join(dir, artifacts.SummaryFile)
	rate := c.rateSweep(plan.spec.kind)
	rows := csvRows(plan, res, cp)
	if err := artifacts.WriteFile(csvPath, func(w io.Writer) error { return genaiperf.WriteAnalyzeCSV(w, rate, rows) }); err != nil {
		return err
	}
	results := []runtime.ExperimentResult{*res}
	if err := artifacts.WriteFile(summaryPath, func(w io.Writer) error { return sweep.SummaryJSON("analyze", results, false)(w) }); err != nil {
		return err
	}
	var plotErr error
	if c.GeneratePlots {
		if _, err := plots.WriteSweepPlots(dir, res); err != nil {
			plotErr = fmt.Errorf("--generate-plots: the sweep plots were not written: %w", err)
		}
	}
	fmt.Fprintf(e.stdout, "\nSweep of %s (%s)\n", plan.spec.kind.name, c.Model[0])
	if err := sweep.Console(res)(e.stdout); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Analyze CSV: %s\nSummary: %s\n", csvPath, summaryPath)
	if n := cp.Points(); n > 0 {
		fmt.Fprintf(e.stdout, "Checkpoint: %s (%d finished points; --resume skips them)\n", cp.Path(), n)
	}
	return plotErr // last, so every other file is written and the table printed
}

// csvRows are the finished points as analyze_export_genai_perf.csv lists
// them; an interrupted point has no place in GenAI-Perf's file.
func csvRows(plan *analyzePlan, res *runtime.ExperimentResult, cp *artifacts.SweepCheckpoint) []genaiperf.AnalyzeRow {
	var rows []genaiperf.AnalyzeRow
	for _, p := range res.Points {
		id, finished := cp.ID(plan.points[p.Params.Label()].Label)
		if !finished {
			continue
		}
		load, ok := p.Params[metrics.ParamRate]
		if !ok {
			load = p.Params[metrics.ParamConcurrency]
		}
		row := genaiperf.AnalyzeRow{
			ConfigName: cp.ConfigName(id), Load: load,
			NumDatasetEntries: plan.points[p.Params.Label()].Run.NumDatasetEntries, Summary: &p.Outcome.Summary,
		}
		if p.Outcome.Telemetry != nil {
			row.Telemetry = &p.Outcome.Telemetry.Summary
		}
		rows = append(rows, row)
	}
	return rows
}
