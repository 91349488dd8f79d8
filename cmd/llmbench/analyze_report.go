package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/sweep"
	"github.com/llmbench/llmbench/runtime"
)

// analyzeCSVName and summaryName are the per-sweep files in --artifact-dir.
const (
	analyzeCSVName = "analyze_export_genai_perf.csv"
	summaryName    = "summary.json"
)

// report writes the sweep's files and prints its table. It runs after an
// interrupt too, over the points that finished, so a stopped sweep still
// leaves a readable result; a resumed sweep rewrites them all.
func (s *sweepRun) report() error {
	dir := s.cmd.ArtifactDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	csvPath, summaryPath := filepath.Join(dir, analyzeCSVName), filepath.Join(dir, summaryName)
	rate := s.cmd.rateSweep(s.plan.spec.kind)
	if err := writeFile(csvPath, func(f *os.File) error { return genaiperf.WriteAnalyzeCSV(f, rate, s.csvRows()) }); err != nil {
		return err
	}
	s.res.Capacity = runtime.AnalyzeCapacity(s.res, nil)
	results := []runtime.ExperimentResult{*s.res}
	if err := writeFile(summaryPath, func(f *os.File) error { return sweep.WriteSummaryJSON(f, "analyze", results) }); err != nil {
		return err
	}
	if s.cmd.GeneratePlots {
		if _, err := plots.WriteSweepPlots(dir, s.res); err != nil {
			fmt.Fprintf(s.env.stderr, "llmbench: sweep plots: %v\n", err)
		}
	}
	fmt.Fprintf(s.env.stdout, "\nSweep of %s (%s)\n", s.plan.spec.kind.name, s.cmd.Model[0])
	if err := sweep.WriteTable(s.env.stdout, s.res); err != nil {
		return err
	}
	fmt.Fprintf(s.env.stdout, "Analyze CSV: %s\nSummary: %s\n", csvPath, summaryPath)
	if n := len(s.cp.Points); n > 0 {
		fmt.Fprintf(s.env.stdout, "Checkpoint: %s (%d finished points; --resume skips them)\n", s.cmd.checkpointPath(), n)
	}
	return nil
}

// csvRows are the finished points as analyze_export_genai_perf.csv lists
// them; an interrupted point has no place in GenAI-Perf's file.
func (s *sweepRun) csvRows() []genaiperf.AnalyzeRow {
	var rows []genaiperf.AnalyzeRow
	for i, p := range s.res.Points {
		if !s.finished[i] {
			continue
		}
		load, ok := p.Params[metrics.ParamRate]
		if !ok {
			load = p.Params[metrics.ParamConcurrency]
		}
		rows = append(rows, genaiperf.AnalyzeRow{
			ConfigName: s.cmd.configName(s.ids[i]), Load: load,
			NumDatasetEntries: s.cmd.NumDatasetEntries, Summary: &p.Outcome.Summary,
		})
	}
	return rows
}
