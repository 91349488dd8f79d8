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

// importExport recomputes GenAI-Perf's metrics from another tool's
// results (a profile_export.json, GenAI-Perf's or llmbench's; a vllm bench
// serve result; AIPerf's profile_export.jsonl; GuideLLM's
// benchmarks.json) and writes them, with the table, into
// <folder>/llmbench-report/ so the original files are never overwritten,
// printing the table of the --view asked for. A file of several loads (a
// GuideLLM sweep) gives one table per load, its files in a subfolder
// named by the load. Reading and counting are storedrun's, so `compare`
// imports the same way.
func (c *reportCmd) importExport(e *env, path string) error {
	imported, err := storedrun.Load(path, storedrun.Options{Stderr: e.stderr, Import: storedrun.ImportOptions{Tokenizer: c.Tokenizer, TokenCount: c.TokenCount}})
	if err != nil {
		return err
	}
	dir := filepath.Join(filepath.Dir(path), "llmbench-report")
	if err := checkApart([]outPath{{"report's output folder", dir}}, path); err != nil {
		return err
	}
	for _, p := range imported.Points {
		pointDir := dir
		if len(imported.Points) > 1 {
			pointDir = filepath.Join(dir, p.Label())
		}
		if err := c.writeImported(e, p.Repeats[0], pointDir); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "Recomputed from %s; written to %s\n", path, dir)
	return nil
}

// writeImported writes one imported point's GenAI-Perf files into dir and
// prints its table.
func (c *reportCmd) writeImported(e *env, rep *storedrun.Repeat, dir string) error {
	summary, run := rep.Outcome.Summary, rep.Described
	run.Tokenizer = c.Tokenizer
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
	return views.WriteConsole(e.stdout, c.View, &run, &summary)
}
