package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/reports/views"
)

// importExport recomputes GenAI-Perf's metrics from a profile_export.json
// (GenAI-Perf's or llmbench's) and writes them, with the table, into
// <folder>/llmbench-report/ so the original files are never overwritten,
// printing the table of the --view asked for.
// Reading and counting are storedrun's, so `compare` imports the same way.
func (c *reportCmd) importExport(e *env, path string) error {
	imported, err := storedrun.Load(path, storedrun.Options{Stderr: e.stderr, Import: storedrun.ImportOptions{Tokenizer: c.Tokenizer, TokenCount: c.TokenCount}})
	if err != nil {
		return err
	}
	rep := imported.Points[0].Repeats[0]
	summary, run := rep.Outcome.Summary, rep.Described
	run.Tokenizer = c.Tokenizer
	dir := filepath.Join(filepath.Dir(path), "llmbench-report")
	if err := checkApart([]outPath{{"report's output folder", dir}}, path); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return runFailed("%w", err)
	}
	jsonName, csvName := genaiperf.ExportFileNames("profile_export.json")
	if err := artifacts.WriteFile(filepath.Join(dir, jsonName), func(w io.Writer) error { return genaiperf.WriteJSON(w, &run, &summary) }); err != nil {
		return runFailed("%w", err)
	}
	if err := artifacts.WriteFile(filepath.Join(dir, csvName), func(w io.Writer) error { return genaiperf.WriteCSV(w, &run, &summary) }); err != nil {
		return runFailed("%w", err)
	}
	if err := views.WriteConsole(e.stdout, c.View, &run, &summary); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Recomputed from %s; written to %s\n", path, dir)
	return nil
}
