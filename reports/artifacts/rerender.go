package artifacts

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/reports/views"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// Rerender re-renders every report of the llmbench folder at path from
// its records.parquet files alone (see `llmbench report`): each point's
// GenAI-Perf files, table and plots, then each sweep's table and plots
// and a run folder's summary.json and report.html. found is false when
// path holds no records file. version is the llmbench doing it.
func Rerender(stdout, stderr io.Writer, path, version string) (found bool, err error) {
	return RerenderView(stdout, stderr, path, version, views.GenAIPerf)
}

// RerenderView is Rerender printing each point under the named tool's
// definitions and console layout (views.Names) instead of GenAI-Perf's;
// every file is written as Rerender writes it, summary.json carrying all
// the views whichever is printed.
func RerenderView(stdout, stderr io.Writer, path, version, view string) (found bool, err error) {
	if err := views.Check(view); err != nil {
		return false, failure.New(failure.Input, err)
	}
	files, err := storedrun.FindRecords(path)
	if err != nil || len(files) == 0 {
		return false, failure.New(failure.Input, err)
	}
	drawn := &PointPlots{}
	stored, lost, err := rerenderAll(stdout, stderr, files, RebuildOptions{View: view, Plots: true, Drawn: drawn})
	if err != nil || len(stored) == 0 {
		return true, cmp.Or(err, lostPoints(lost))
	}
	return true, cmp.Or(reportSweeps(stdout, stderr, path, version, stored, lost, drawn), lostPoints(lost))
}

// RebuildOptions are how stored points are re-rendered and rebuilt
// (RebuildRun; a report re-renders with Plots and no Attach).
type RebuildOptions struct {
	// View names the tool whose definitions the point tables print
	// (views.Names).
	View string
	// Drawn keeps the point plots drawn (with Plots), for the run's
	// report.html to embed those bytes (RunReport.Drawn), not whatever
	// its folders hold; nil keeps none.
	Drawn *PointPlots
	// Plots draws each point's plots, as run does unless --no-plots.
	Plots bool
	// Attach, when not nil, gives the baseline each experiment's
	// baseline gates compare with, before its points are judged.
	Attach func(*plan.Experiment) (*runtime.Baseline, error)
}

// RebuildRun re-renders every point below dir (a merged run) and returns
// its experiments rebuilt from their saved plans, judged afresh, for the
// caller to write the run's files (RunReport) after check().
func RebuildRun(stdout, stderr io.Writer, dir string, opts RebuildOptions) ([]runtime.ExperimentResult, error) {
	files, err := storedrun.FindRecords(dir)
	if err != nil {
		return nil, failure.Inputf("%w", err)
	}
	stored, lost, err := rerenderAll(stdout, stderr, files, opts)
	if err = cmp.Or(err, lostPoints(lost)); err != nil { // merged files are whole: none is lost
		return nil, err
	}
	var results []runtime.ExperimentResult
	for _, g := range storedrun.GroupExperiments(stored) {
		res, err := g.Rebuild(opts.Attach, nil)
		if err != nil {
			return nil, err
		}
		results = append(results, res)
	}
	return results, nil
}

// rerenderAll re-renders every records file, each under its folder's
// heading. A point that a crash left without a single row (a run killed
// as the point began) is said and skipped, so the points measured before
// it are still reported; lost lists those files, for the caller to mark
// their runs partial and fail with lostPoints once the rest is written.
func rerenderAll(stdout, stderr io.Writer, files []string, opts RebuildOptions) (stored []storedrun.Measured, lost []string, err error) {
	stored = make([]storedrun.Measured, 0, len(files))
	for _, file := range files {
		fmt.Fprintf(stdout, "\n== %s ==\n", filepath.Dir(file))
		p, err := rerender(stdout, stderr, file, opts)
		if errors.Is(err, storedrun.ErrNothingRecovered) {
			fmt.Fprintf(stderr, "llmbench: %v\n", err)
			lost = append(lost, file)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		stored = append(stored, p)
	}
	return stored, lost, nil
}

// lostPoints is the run failure (exit 3) of records files that recovered
// no request; nil when there are none.
func lostPoints(files []string) error {
	if len(files) == 0 {
		return nil
	}
	return failure.Runf("%d records files recovered no request, their points are left out: %s", len(files), strings.Join(files, ", "))
}

// rerender recomputes one point's summary (and its dataset components')
// from its records, and its telemetry from its telemetry.parquet, and
// rewrites its GenAI-Perf JSON and CSV and its plots beside them,
// printing the table of the named view (views.Names); it returns the
// point for the sweep reports. Records are streamed by storedrun, so
// memory does not grow with the file.
func rerender(stdout, stderr io.Writer, file string, opts RebuildOptions) (storedrun.Measured, error) {
	rep, err := storedrun.OpenFile(stderr, file)
	if err != nil {
		return storedrun.Measured{}, err
	}
	data := plots.NewPointData()
	var sent map[int64]bool // the completed requests, to repair the export by
	if rep.Meta.Recovered {
		sent = map[int64]bool{}
	}
	reduce := storedrun.ReduceOptions{Observe: func(r *metrics.Record) {
		data.Add(r)
		if sent != nil && r.Err == nil {
			sent[r.Sent] = true
		}
	}}
	if opts.Attach != nil && rep.Plan != nil { // its baseline gates will be judged again
		reduce.Track = rep.Plan.Plan.BaselineTrack()
	}
	out, err := rep.Reduce(reduce)
	if err != nil {
		return storedrun.Measured{}, err
	}
	run, dir := rep.Described, rep.Dir()
	if rep.Meta.Recovered {
		repairExport(stderr, filepath.Join(dir, run.ProfileExportFile), &run, sent)
	}
	if out.Telemetry, err = rep.Telemetry(&out.Summary); err != nil {
		fmt.Fprintf(stderr, "llmbench: %s: %v (the point is rebuilt without its telemetry)\n", dir, err)
	}
	if err := writeRerendered(stderr, rep, &run, out); err != nil {
		return storedrun.Measured{}, err
	}
	if opts.Plots {
		opts.Drawn.draw(stderr, dir, rep.Meta.Point, dir, data, out.Telemetry)
	}
	if err := views.WriteConsole(stdout, opts.View, &run, &out.Summary); err != nil {
		return storedrun.Measured{}, err
	}
	writePointLines(stdout, out)
	return storedrun.Measured{Repeat: rep, Out: out}, nil
}

// writeRerendered rewrites a point's GenAI-Perf JSON and CSV.
func writeRerendered(stderr io.Writer, rep *storedrun.Repeat, run *genaiperf.Run, out *runtime.Outcome) error {
	dir := rep.Dir()
	if err := describeTelemetry(run, out); err != nil {
		return failure.Runf("%w", err)
	}
	jsonName, csvName := exportNames(stderr, dir, run.ProfileExportFile, rep.Meta.Recovered, &out.Summary)
	if err := WriteFile(filepath.Join(dir, jsonName), func(w io.Writer) error { return genaiperf.WriteJSON(w, run, &out.Summary) }); err != nil {
		return failure.Runf("%w", err)
	}
	if err := WriteFile(filepath.Join(dir, csvName), func(w io.Writer) error { return genaiperf.WriteCSV(w, run, &out.Summary) }); err != nil {
		return failure.Runf("%w", err)
	}
	return nil
}

// writePointLines prints what a re-rendered point's table is followed
// by: its components, replicas, sessions, shards, telemetry and steady
// state.
func writePointLines(stdout io.Writer, out *runtime.Outcome) {
	writeComponents(stdout, out.Components)
	writeReplicas(stdout, out.Replicas)
	writeStages(stdout, out.Stages)
	writeSessions(stdout, out.Summary.Sessions)
	writeShards(stdout, out.Shards)
	writeTelemetryLines(stdout, out)
	writeSteadyLine(stdout, out.Steady)
}

// repairExport makes a valid copy of the raw export a killed run left cut
// mid-write, beside it (storedrun.RecoveredName), keeping the completed
// requests the recovered records hold, and says what it kept; the cut
// file itself is left as it is. A killed auto point's requests are in
// the file where they waited for its warm-up cut
// (genaiperf.HeldExportFile), which is repaired instead. A failure to do
// so is reported, not fatal, since the records are what every other
// report is rebuilt from.
func repairExport(stderr io.Writer, path string, run *genaiperf.Run, sent map[int64]bool) {
	b, err := os.ReadFile(path)
	if err != nil || json.Valid(b) {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "llmbench: %s: cannot repair: %v\n", path, err)
		}
		return
	}
	from := path
	if held, ok := heldExport(path); ok {
		b, from = held, filepath.Join(filepath.Dir(path), genaiperf.HeldExportFile)
	}
	repairedPath := storedrun.RecoveredName(path)
	if err := os.WriteFile(repairedPath, b, 0o644); err != nil {
		fmt.Fprintf(stderr, "llmbench: %s: cannot repair: %v\n", path, err)
		return
	}
	kept, _, err := genaiperf.RepairProfileExport(repairedPath, run, sent)
	if err != nil {
		os.Remove(repairedPath)
		fmt.Fprintf(stderr, "llmbench: %s: cannot repair: %v\n", path, err)
		return
	}
	fmt.Fprintf(stderr, "llmbench: %s was cut by the crash: repaired into %s, keeping %d of the %d completed requests the recovered records hold (failed ones are in the records only); %s is left as it was\n",
		from, repairedPath, kept, len(sent), from)
}

// heldExport reads the entries a killed auto point's export held back
// for its warm-up cut (genaiperf.HeldExportFile, beside the export), when
// that file is the export's run's: written to no earlier than the export
// was created, not left by an earlier killed run in the same folder.
func heldExport(path string) ([]byte, bool) {
	held := filepath.Join(filepath.Dir(path), genaiperf.HeldExportFile)
	hi, err := os.Stat(held)
	if err != nil {
		return nil, false
	}
	if ei, err := os.Stat(path); err == nil && hi.ModTime().Before(ei.ModTime()) {
		return nil, false
	}
	b, err := os.ReadFile(held)
	return b, err == nil
}
