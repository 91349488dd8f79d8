package artifacts

import (
	"io"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/reports/views"
	"github.com/llmbench/llmbench/runtime/failure"
)

// ProcessExports is what `llmbench process-export-files` is asked: the
// folder of runs (one subfolder each, named as given) and where to write.
type ProcessExports struct {
	InputDirectory, ArtifactDir, ProfileExportFile string
	// Import counts the merged requests' tokens.
	Import storedrun.ImportOptions
}

// Process is GenAI-Perf's process-export-files: the runs' requests merged
// into one export, imported as `report` imports one, the statistics
// written with the runs' throughputs summed and their telemetry and first
// configuration (genaiperf.Aggregate), and the table printed. It returns
// the point's folder and how many runs it aggregated.
func (o ProcessExports) Process(stdout, stderr io.Writer) (dir string, runs int, err error) {
	if filepath.Base(o.ProfileExportFile) != o.ProfileExportFile {
		return "", 0, failure.Inputf("--profile-export-file %s: want a bare file name", o.ProfileExportFile)
	}
	found, err := genaiperf.FindExportRuns(o.InputDirectory)
	if err != nil {
		return "", 0, failure.Inputf("-d: %w", err)
	}
	agg, err := genaiperf.AggregateRuns(found)
	if err != nil {
		return "", 0, failure.Inputf("-d: %w", err)
	}
	agg.InputPath = o.InputDirectory // echoed as given, as GenAI-Perf echoes it
	if err := CheckOutputApart("--artifact-dir", o.ArtifactDir, o.InputDirectory); err != nil {
		return "", 0, err
	}
	merged, err := o.merge(found)
	if err != nil {
		return "", 0, err
	}
	imported, err := storedrun.Load(merged, storedrun.Options{Stderr: stderr, Import: o.Import})
	if err != nil {
		os.Remove(merged)
		return "", 0, err
	}
	p := imported.Points[0]
	summary, run := p.Repeats[0].Outcome.Summary, p.Repeats[0].Described
	run.Tokenizer, run.ArtifactDir, run.ProfileExportFile = o.Import.Tokenizer, o.ArtifactDir, o.ProfileExportFile
	if len(p.Desc.Models) > 0 {
		run.Models = p.Desc.Models // the payloads' model names the folder, as the runs' config does GenAI-Perf's
	}
	agg.Apply(&run, &summary)
	dir = filepath.Join(o.ArtifactDir, run.DirName())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, failure.Runf("%w", err)
	}
	if err := os.Rename(merged, filepath.Join(dir, o.ProfileExportFile)); err != nil {
		return "", 0, failure.Runf("%w", err)
	}
	jsonName, csvName := genaiperf.ExportFileNames(o.ProfileExportFile)
	if err := WriteFile(filepath.Join(dir, jsonName), func(w io.Writer) error { return genaiperf.WriteJSON(w, &run, &summary) }); err != nil {
		return "", 0, failure.Runf("%w", err)
	}
	if err := WriteFile(filepath.Join(dir, csvName), func(w io.Writer) error { return genaiperf.WriteCSV(w, &run, &summary) }); err != nil {
		return "", 0, failure.Runf("%w", err)
	}
	return dir, len(found), views.WriteConsole(stdout, views.GenAIPerf, &run, &summary)
}

// merge writes the runs' requests as one perf_analyzer export (in
// completion order across the runs, where GenAI-Perf appends each file's
// list in turn: the statistics do not depend on the order) to a temporary
// file in the artifact folder, moved into the point's folder once its
// name is known.
func (o ProcessExports) merge(runs []genaiperf.ExportRun) (string, error) {
	if err := os.MkdirAll(o.ArtifactDir, 0o755); err != nil {
		return "", failure.Runf("%w", err)
	}
	f, err := os.CreateTemp(o.ArtifactDir, ".process-export-*.json")
	if err != nil {
		return "", failure.Runf("%w", err)
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
		return "", failure.Inputf("-d: %w", err)
	}
	return f.Name(), nil
}

// CreateNew writes data to a new file at path, given by flag; an existing
// file is never written over.
func CreateNew(flag, path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if os.IsExist(err) {
		return failure.Inputf("%s %s: the file exists; choose another name (nothing is written over)", flag, path)
	}
	if err != nil {
		return failure.Inputf("%s %s: %w", flag, path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return failure.Runf("%w", err)
	}
	if err := f.Close(); err != nil {
		return failure.Runf("%w", err)
	}
	return nil
}
