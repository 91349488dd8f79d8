package main

import (
	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/reports/views"
)

// reportCmd re-renders reports from stored per-request records alone, so a
// run's numbers can be recomputed (or re-formatted by a newer llmbench)
// without sending a request.
type reportCmd struct {
	Path       string `arg:"" type:"path" help:"A run or point folder holding records.parquet files, or a GenAI-Perf / perf_analyzer profile_export.json (or a folder holding one) to import."`
	Tokenizer  string `help:"For an imported profile_export.json: the tokenizer to count ISL/OSL with, as GenAI-Perf did."`
	TokenCount string `default:"auto" enum:"auto,tokenizer,usage,chunks" help:"For an imported profile_export.json: how to count tokens (auto: tokenizer when given, else usage)."`
	View       string `default:"genai-perf" help:"Print each point under this tool's metric definitions and table layout: genai-perf (the default), vllm, guidellm, llmperf or aiperf (docs/metrics.md). summary.json carries every view whichever is printed."`
}

func (c *reportCmd) Run(e *env) error {
	if err := views.Check(c.View); err != nil {
		return invalid("%w", err)
	}
	found, err := artifacts.RerenderView(e.stdout, e.stderr, c.Path, version, c.View)
	if found || err != nil {
		return err
	}
	if export, ok := storedrun.ExportPath(c.Path); ok {
		return c.importExport(e, export)
	}
	return invalid("%s: no records.parquet and no other tool's results (profile_export.json, profile_export.jsonl, benchmarks.json) found", c.Path)
}
