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
	if filepath.Base(c.ProfileExportFile) != c.ProfileExportFile {
		return invalid("--profile-export-file %s: want a bare file name", c.ProfileExportFile)
	}
	runs, err := genaiperf.FindExportRuns(c.InputDirectory)
	if err != nil {
		return invalid("-d: %w", err)
	}
	agg, err := genaiperf.AggregateRuns(runs)
	if err != nil {
		return invalid("-d: %w", err)
	}
	agg.InputPath = c.InputDirectory // echoed as given, as GenAI-Perf echoes it
	if err := checkApart([]outPath{{"--artifact-dir", c.ArtifactDir}}, c.InputDirectory); err != nil {
		return err
	}
	merged, err := c.mergeExports(runs)
	if err != nil {
		return err
	}
	imported, err := storedrun.Load(merged, storedrun.Options{Stderr: e.stderr, Import: storedrun.ImportOptions{Tokenizer: c.Tokenizer, TokenCount: c.TokenCount}})
	if err != nil {
		os.Remove(merged)
		return err
	}
	rep := imported.Points[0].Repeats[0]
	summary, run := rep.Outcome.Summary, rep.Described
	run.Tokenizer, run.ArtifactDir, run.ProfileExportFile = c.Tokenizer, c.ArtifactDir, c.ProfileExportFile
	if models := imported.Points[0].Desc.Models; len(models) > 0 {
		run.Models = models // the payloads' model names the folder, as the runs' config does GenAI-Perf's
	}
	agg.Apply(&run, &summary)
	dir := filepath.Join(c.ArtifactDir, run.DirName())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return runFailed("%w", err)
	}
	if err := os.Rename(merged, filepath.Join(dir, c.ProfileExportFile)); err != nil {
		return runFailed("%w", err)
	}
	jsonName, csvName := genaiperf.ExportFileNames(c.ProfileExportFile)
	if err := artifacts.WriteFile(filepath.Join(dir, jsonName), func(w io.Writer) error { return genaiperf.WriteJSON(w, &run, &summary) }); err != nil {
		return runFailed("%w", err)
	}
	if err := artifacts.WriteFile(filepath.Join(dir, csvName), func(w io.Writer) error { return genaiperf.WriteCSV(w, &run, &summary) }); err != nil {
		return runFailed("%w", err)
	}
	if err := views.WriteConsole(e.stdout, views.GenAIPerf, &run, &summary); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Aggregated %d runs of %s; written to %s\n", len(runs), c.InputDirectory, dir)
	return nil
}

// mergeExports writes the runs' requests as one perf_analyzer export (in
// completion order across the runs, where GenAI-Perf appends each file's
// list in turn: the statistics do not depend on the order) to a temporary
// file in the artifact folder, moved into the point's folder once its
// name is known.
func (c *processExportCmd) mergeExports(runs []genaiperf.ExportRun) (string, error) {
	if err := os.MkdirAll(c.ArtifactDir, 0o755); err != nil {
		return "", runFailed("%w", err)
	}
	f, err := os.CreateTemp(c.ArtifactDir, ".process-export-*.json")
	if err != nil {
		return "", runFailed("%w", err)
	}
	paths := make([]string, len(runs))
	for i, r := range runs {
		paths[i] = r.Export
	}
	err = genaiperf.MergeProfileExports(f, paths)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", invalid("-d: %w", err)
	}
	return f.Name(), nil
}
