package main

import (
	"fmt"

	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/storedrun"
)

// processExportCmd is GenAI-Perf's process-export-files: the runs of one
// load measured at once from several machines, each in its own subfolder,
// aggregated into one artifact folder. `llmbench merge` is the exact way
// for llmbench's own shards; this is the path GenAI-Perf users' scripts
// call.
type processExportCmd struct {
	InputDirectory    string `short:"d" required:"" help:"The folder holding one subfolder per run, each with its profile_export.json and profile_export_genai_perf.json."`
	ArtifactDir       string `default:"artifacts" help:"Base directory for the aggregated artifacts."`
	ProfileExportFile string `default:"profile_export.json" help:"Name of the merged raw export file (a bare name)."`
	Tokenizer         string `help:"The tokenizer to count ISL/OSL of the merged requests with, as GenAI-Perf does with the runs' tokenizer."`
	TokenCount        string `default:"auto" enum:"auto,tokenizer,usage,chunks" help:"How to count tokens (auto: tokenizer when given, else usage)."`
	Verbose           bool   `short:"v" help:"Accepted for GenAI-Perf scripts."`
}

func (c *processExportCmd) Run(e *env) error {
	o := artifacts.ProcessExports{InputDirectory: c.InputDirectory, ArtifactDir: c.ArtifactDir, ProfileExportFile: c.ProfileExportFile,
		Import: storedrun.ImportOptions{Tokenizer: c.Tokenizer, TokenCount: c.TokenCount}}
	dir, runs, err := o.Process(e.stdout, e.stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Aggregated %d runs of %s; written to %s\n", runs, c.InputDirectory, dir)
	return nil
}
