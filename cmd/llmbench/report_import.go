package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/paexport"
)

// profileExport finds a perf_analyzer export: path itself, or
// profile_export.json inside the folder path.
func profileExport(path string) (string, bool) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() && strings.HasSuffix(path, ".json") {
		return path, true
	}
	candidate := filepath.Join(path, "profile_export.json")
	_, err := os.Stat(candidate)
	return candidate, err == nil
}

// importExport recomputes GenAI-Perf's metrics from a profile_export.json
// (GenAI-Perf's or llmbench's) and writes them, with the table, into
// <folder>/llmbench-report/ so the original files are never overwritten.
func (c *reportCmd) importExport(e *env, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return invalid("%w", err)
	}
	exp, err := paexport.Read(f)
	f.Close()
	if err != nil {
		return invalid("%s: %w", path, err)
	}
	counting, err := c.count(exp)
	if err != nil {
		return err
	}
	summary := metrics.Summarize(exp.Records, metrics.Options{})
	run := importedRun(exp, counting)
	run.Tokenizer = c.Tokenizer
	dir := filepath.Join(filepath.Dir(path), "llmbench-report")
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
	if err := genaiperf.WriteConsole(e.stdout, &run, &summary); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Recomputed from %s; written to %s\n", path, dir)
	return nil
}

// count fills every record's ISL and OSL with the chosen counting mode.
func (c *reportCmd) count(exp *paexport.Export) (runtime.Counting, error) {
	var tok runtime.Tokenizer
	if c.Tokenizer != "" {
		t, err := runtime.LoadTokenizer(c.Tokenizer)
		if err != nil {
			return runtime.Counting{}, invalid("--tokenizer: %w", err)
		}
		tok = t
	}
	mode, err := runtime.ParseCountMode(c.TokenCount, tok != nil)
	if err != nil {
		return runtime.Counting{}, invalid("--token-count: %w", err)
	}
	reqs := make([]runtime.Request, len(exp.Prompts))
	for i, p := range exp.Prompts {
		reqs[i] = runtime.Request{Text: p, Words: len(strings.Fields(p))}
	}
	return runtime.CountTokens(exp.Records, reqs, mode, tok), nil
}

// importedRun describes an imported export for the GenAI-Perf writers.
func importedRun(exp *paexport.Export, counting runtime.Counting) genaiperf.Run {
	run := genaiperf.DefaultRun("imported")
	run.Subcommand = "report"
	run.Endpoint = exp.Endpoint
	switch {
	case strings.Contains(exp.Endpoint, "embeddings"):
		run.EndpointType = "embeddings"
	case strings.HasSuffix(exp.Endpoint, "v1/completions"):
		run.EndpointType = "completions"
	}
	run.Streaming = streamed(exp.Records)
	if exp.Mode == "request_rate" {
		run.Stimulus = genaiperf.Stimulus{RequestRate: exp.Value}
	} else {
		run.Stimulus = genaiperf.Stimulus{Concurrency: int(exp.Value)}
	}
	run.TokenCounting = counting.String()
	return run
}

// streamed guesses streaming from the records: a streamed request has
// several chunks, a non-streaming one exactly one at completion.
func streamed(recs []metrics.Record) bool {
	for _, r := range recs {
		if len(r.Chunks) > 1 {
			return true
		}
	}
	return false
}
