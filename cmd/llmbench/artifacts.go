package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime"
)

// writePointArtifacts writes GenAI-Perf's four files and records.parquet
// for one measured point into dir and prints its console table. id names
// the point in the Parquet file (scenario, experiment, point, repeat); the
// rest of the file's metadata comes from r.
func writePointArtifacts(stdout io.Writer, dir string, r *genaiperf.Run, out *runtime.Outcome, id records.Meta) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	payloads := make([][]byte, len(out.Requests))
	for i, req := range out.Requests {
		payloads[i] = req.Body
	}
	jsonName, csvName := genaiperf.ExportFileNames(r.ProfileExportFile)
	files := []struct {
		name  string
		write func(*os.File) error
	}{
		{"inputs.json", func(f *os.File) error { return genaiperf.WriteInputs(f, payloads) }},
		{r.ProfileExportFile, func(f *os.File) error {
			return genaiperf.WriteProfileExport(f, r, out.Result.Records, payloads)
		}},
		{jsonName, func(f *os.File) error { return genaiperf.WriteJSON(f, r, &out.Summary) }},
		{csvName, func(f *os.File) error { return genaiperf.WriteCSV(f, r, &out.Summary) }},
		{"records.parquet", func(f *os.File) error { return writeRecords(f, r, out, id) }},
	}
	for _, file := range files {
		if err := writeFile(filepath.Join(dir, file.name), file.write); err != nil {
			return err
		}
	}
	if err := genaiperf.WriteConsole(stdout, r, &out.Summary); err != nil {
		return err
	}
	writeComponents(stdout, out, out.Goodput)
	fmt.Fprintf(stdout, "Prompts: %s; ISL and OSL counted by %s\n", promptSource(r), r.TokenCounting)
	fmt.Fprintf(stdout, "Artifacts: %s\n", dir)
	return nil
}

func writeFile(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// promptSource says where the prompts came from, since ISL means
// different things for token-exact and word-based prompts.
func promptSource(r *genaiperf.Run) string {
	switch {
	case r.InputFile != "":
		return "from " + r.InputFile
	case r.Tokenizer != "":
		return "synthetic, token-exact under " + r.Tokenizer
	}
	return "synthetic, built-in English words (give --tokenizer for token-exact prompts)"
}

// writeRecords writes the point's per-request records to Parquet. The
// records are written when the point ends; memory-bounded streaming during
// the point is still to be wired (issue 6).
func writeRecords(f *os.File, r *genaiperf.Run, out *runtime.Outcome, id records.Meta) error {
	meta := id
	meta.Model, meta.EndpointURL, meta.API, meta.Stream = firstModel(r), r.URL, r.EndpointType, r.Streaming
	meta.Load, meta.TokenCounting, meta.Version = r.DirName(), r.TokenCounting, version
	described := *r
	described.URL = records.StripCredentials(r.URL)
	config, err := json.Marshal(described)
	if err != nil {
		return err
	}
	meta.Config = string(config)
	w, err := records.NewWriter(f, meta)
	if err != nil {
		return err
	}
	if err := w.Write(out.Result.Records...); err != nil {
		return err
	}
	return w.Close()
}

func firstModel(r *genaiperf.Run) string {
	if len(r.Models) == 0 {
		return ""
	}
	return r.Models[0]
}

// writePlots renders a point's plots into dir/plots. Plots are a view:
// failing to draw one is reported and does not fail the run.
func writePlots(stderr io.Writer, dir, title string, out *runtime.Outcome) {
	if _, err := plots.WritePointPlots(filepath.Join(dir, "plots"), title, out.Result.Records); err != nil {
		fmt.Fprintf(stderr, "llmbench: plots for %s: %v\n", title, err)
	}
}

// writeSweepPlots renders a sweep's curves into dir, named after the
// experiment, when it has more than one point.
func writeSweepPlots(stderr io.Writer, dir string, res *runtime.ExperimentResult, param string) {
	if len(res.Points) < 2 {
		return
	}
	if _, err := plots.WriteSweepPlots(dir, res, param); err != nil {
		fmt.Fprintf(stderr, "llmbench: sweep plots: %v\n", err)
	}
}
