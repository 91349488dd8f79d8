package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime"
)

// reportCmd re-renders reports from stored per-request records alone, so a
// run's numbers can be recomputed (or re-formatted by a newer llmbench)
// without sending a request.
type reportCmd struct {
	Path       string `arg:"" type:"path" help:"A run or point folder holding records.parquet files, or a GenAI-Perf / perf_analyzer profile_export.json (or a folder holding one) to import."`
	Tokenizer  string `help:"For an imported profile_export.json: the tokenizer to count ISL/OSL with, as GenAI-Perf did."`
	TokenCount string `default:"auto" enum:"auto,tokenizer,usage,chunks" help:"For an imported profile_export.json: how to count tokens (auto: tokenizer when given, else usage)."`
}

func (c *reportCmd) Run(e *env) error {
	files, err := findRecords(c.Path)
	if err != nil {
		return invalid("%w", err)
	}
	if len(files) == 0 {
		if export, ok := profileExport(c.Path); ok {
			return c.importExport(e, export)
		}
		return invalid("%s: no records.parquet and no profile_export.json found", c.Path)
	}
	stored := make([]*storedPoint, 0, len(files))
	for _, file := range files {
		fmt.Fprintf(e.stdout, "\n== %s ==\n", filepath.Dir(file))
		p, err := rerender(e, file)
		if err != nil {
			return err
		}
		stored = append(stored, p)
	}
	return c.reportSweeps(e, stored)
}

// findRecords lists the records.parquet files at or below path.
func findRecords(path string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "records.parquet" {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

// rerender recomputes one point's summary (and its dataset components')
// from its records and rewrites its GenAI-Perf JSON and CSV and its plots
// beside them, printing the table; it returns the point for the sweep
// reports. Records are read a page at a time, so memory does not grow
// with the file. A file left without its footer by a crashed run is
// recovered first (see records.Recover).
func rerender(e *env, file string) (*storedPoint, error) {
	f, size, err := openRecordsFile(e, file)
	if err != nil {
		return nil, invalid("%s: %w", file, err)
	}
	defer f.Close()
	meta, err := records.ReadMeta(f, size)
	if err != nil {
		return nil, invalid("%s: %w", file, err)
	}
	var run genaiperf.Run
	if err := json.Unmarshal([]byte(meta.Config), &run); err != nil {
		return nil, invalid("%s: the file has no run description to render reports from (written by llmbench %q): %v",
			file, meta.Version, err)
	}
	saved, err := savedPlan(meta)
	if err != nil {
		return nil, invalid("%s: %w", file, err)
	}
	slos, counting, err := goodputAndCounting(saved, &run)
	if err != nil {
		return nil, invalid("%s: %w", file, err)
	}
	// Rows are in completion order, the order the run summarized them in
	// (the order of a floating-point sum shows in the last digit).
	acc, data := metrics.NewAccumulator(metrics.Options{Goodput: slos}), plots.NewPointData()
	parts := runtime.ComponentAccumulators{Goodput: slos}
	if _, err := records.ReadEach(f, size, func(r *metrics.Record) error {
		acc.Add(r)
		parts.Add(r)
		data.Add(r)
		return nil
	}); err != nil {
		return nil, invalid("%s: %w", file, err)
	}
	out := &runtime.Outcome{Counting: counting, Summary: acc.Summary(), Components: parts.Summaries(), Goodput: slos,
		Interrupted: saved != nil && saved.Partial}
	dir := filepath.Dir(file)
	jsonName, csvName := genaiperf.ExportFileNames(run.ProfileExportFile)
	if err := artifacts.WriteFile(filepath.Join(dir, jsonName), func(w io.Writer) error { return genaiperf.WriteJSON(w, &run, &out.Summary) }); err != nil {
		return nil, runFailed("%w", err)
	}
	if err := artifacts.WriteFile(filepath.Join(dir, csvName), func(w io.Writer) error { return genaiperf.WriteCSV(w, &run, &out.Summary) }); err != nil {
		return nil, runFailed("%w", err)
	}
	if _, err := plots.WritePointPlots(filepath.Join(dir, "plots"), meta.Point, data); err != nil {
		fmt.Fprintf(e.stderr, "llmbench: plots for %s: %v\n", dir, err)
	}
	if err := genaiperf.WriteConsole(e.stdout, &run, &out.Summary); err != nil {
		return nil, err
	}
	artifacts.WriteComponents(e.stdout, out.Components)
	return &storedPoint{file: file, meta: meta, run: run, out: out, record: saved}, nil
}

// savedPlan decodes the file's saved plan; nil for a file of schema
// version 1, which has none.
func savedPlan(meta records.Meta) (*runtime.PointRecord, error) {
	if meta.PointRecord == "" {
		return nil, nil
	}
	rec, err := runtime.DecodePointRecord(meta.PointRecord)
	return &rec, err
}

// goodputAndCounting are the point's goodput SLOs and token counting: from
// its saved plan, or read back from the run description of a version 1
// file (see report_v1.go).
func goodputAndCounting(saved *runtime.PointRecord, run *genaiperf.Run) ([]metrics.SLO, runtime.Counting, error) {
	if saved == nil {
		slos, err := goodputOf(run.Goodput)
		return slos, countingOf(run.TokenCounting), err
	}
	exp, err := saved.Plan.Experiment()
	if err != nil {
		return nil, runtime.Counting{}, err
	}
	return exp.Goodput, saved.Counting, nil
}

// openRecordsFile opens a records file for reading, first recovering one
// whose run was killed before it could write the footer.
func openRecordsFile(e *env, path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if _, err := records.ReadMeta(f, st.Size()); !errors.Is(err, records.ErrNoFooter) {
		return f, st.Size(), nil // readable, or an error the reader will report
	}
	f.Close()
	if f, err = os.OpenFile(path, os.O_RDWR, 0); err != nil {
		return nil, 0, fmt.Errorf("its run was interrupted before finishing it, and it cannot be opened to recover it: %w", err)
	}
	info, err := records.Recover(f)
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	fmt.Fprintf(e.stderr, "llmbench: %s had no footer (its run was killed before finishing it): recovered %d requests in %d row groups, dropped %d bytes of an unfinished row group\n",
		path, info.Rows, info.RowGroups, info.DroppedBytes)
	if st, err = f.Stat(); err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}
