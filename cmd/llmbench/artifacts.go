package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime"
)

// writePointArtifacts writes GenAI-Perf's four files for one measured point
// into dir and prints its console table. (records.parquet is written while
// the point runs: see openRecords.)
func writePointArtifacts(stdout io.Writer, dir string, r *genaiperf.Run, out *runtime.Outcome) error {
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

// recordsFile is a point's records.parquet, written while the point runs
// so a crash loses at most the open row group.
type recordsFile struct {
	f *os.File
	w *records.Writer
}

// openRecords starts dir/records.parquet. id names the point (scenario,
// experiment, point, repeat); the rest of the metadata comes from r.
func openRecords(dir string, r *genaiperf.Run, id records.Meta) (*recordsFile, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(dir, "records.parquet"))
	if err != nil {
		return nil, err
	}
	meta := id
	meta.Model, meta.EndpointURL, meta.API, meta.Stream = firstModel(r), r.URL, r.EndpointType, r.Streaming
	meta.Load, meta.Version = r.DirName(), version
	w, err := records.NewWriter(f, meta)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &recordsFile{f: f, w: w}, nil
}

// finish writes the footer with what is known only now: how tokens were
// counted and the run description that `llmbench report` renders from.
func (rf *recordsFile) finish(r *genaiperf.Run, out *runtime.Outcome) error {
	described := *r
	described.URL = records.StripCredentials(r.URL)
	config, err := json.Marshal(described)
	if err != nil {
		return err
	}
	rf.w.Finish(r.TokenCounting, string(config))
	err = errors.Join(out.RecordsErr, rf.w.Close(), rf.f.Close())
	if err != nil {
		return fmt.Errorf("%s: %w", rf.f.Name(), err)
	}
	return nil
}

// abandon closes a file whose point never ran and removes it.
func (rf *recordsFile) abandon() {
	rf.f.Close()
	os.Remove(rf.f.Name())
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

// measurePoint runs one point with a live progress display and its
// records streamed to dir/records.parquet, then finishes the file.
func measurePoint(e *env, title, dir string, job runtime.Job, run *genaiperf.Run, id records.Meta) (*runtime.Outcome, error) {
	rf, err := openRecords(dir, run, id)
	if err != nil {
		return nil, runFailed("%v", err)
	}
	job.Records = rf.w
	out, err := executeWithProgress(e, title, job)
	if err != nil {
		rf.abandon()
		if errors.Is(err, runtime.ErrUnreachable) {
			return nil, runFailed("%s: %v", title, err)
		}
		return nil, invalid("%s: %v", title, err)
	}
	run.TokenCounting = out.Counting.String()
	if err := rf.finish(run, out); err != nil {
		return nil, runFailed("writing records: %v", err)
	}
	return out, nil
}
