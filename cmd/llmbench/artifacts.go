package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/runtime"
)

// writePointArtifacts writes a measured point's GenAI-Perf summary files
// (JSON and CSV) into dir and prints its console table. What needs the
// records themselves — records.parquet, profile_export.json, inputs.json
// and the point plots — was written while the point ran: see pointSink.
func writePointArtifacts(stdout io.Writer, dir string, r *genaiperf.Run, out *runtime.Outcome) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	r.Partial = out.Interrupted
	jsonName, csvName := genaiperf.ExportFileNames(r.ProfileExportFile)
	if err := writeFile(filepath.Join(dir, jsonName), func(f *os.File) error { return genaiperf.WriteJSON(f, r, &out.Summary) }); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, csvName), func(f *os.File) error { return genaiperf.WriteCSV(f, r, &out.Summary) }); err != nil {
		return err
	}
	if err := genaiperf.WriteConsole(stdout, r, &out.Summary); err != nil {
		return err
	}
	writeComponents(stdout, out.Components)
	fmt.Fprintf(stdout, "Prompts: %s; ISL and OSL counted by %s\n", promptSource(r), r.TokenCounting)
	fmt.Fprintf(stdout, "Artifacts: %s\n", dir)
	if out.Interrupted {
		fmt.Fprintln(stdout, "PARTIAL: interrupted before the point's stop condition; these numbers cover only what was measured.")
	}
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

func firstModel(r *genaiperf.Run) string {
	if len(r.Models) == 0 {
		return ""
	}
	return r.Models[0]
}
