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
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/reports/views"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
)

// FindRecords lists the records.parquet files at or below path.
func FindRecords(path string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == recordsFile {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

// rerender recomputes one point's summary (and its dataset components')
// from its records, and its telemetry from its telemetry.parquet, and
// rewrites its GenAI-Perf JSON and CSV and its plots beside them,
// printing the table of the named view (views.Names); it returns the
// point for the sweep reports. Records are read a page at a time, so memory does not grow
// with the file. A file left without its footer by a crashed run is
// recovered first (see records.Recover).
func rerender(stdout, stderr io.Writer, file string, opts RebuildOptions) (*storedPoint, error) {
	pf, err := OpenPoint(stderr, file)
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	meta, run, saved, slos, counting := pf.Meta, pf.Run, pf.Plan, pf.Goodput, pf.Counting
	// Rows are in completion order, the order the run summarized them in
	// (the order of a floating-point sum shows in the last digit).
	acc, data := metrics.NewAccumulator(metrics.Options{Goodput: slos}), plots.NewPointData()
	parts := runtime.ComponentAccumulators{Goodput: slos}
	reps := runtime.ReplicaAccumulators{Goodput: slos}
	if saved != nil {
		reps.URLs = saved.Plan.Endpoint.URLs
	}
	var series *metrics.Series
	if opts.Attach != nil { // its baseline gates will be judged again
		series = baselineSeries(saved)
	}
	var sent map[int64]bool // the completed requests, to repair the export by
	if meta.Recovered {
		sent = map[int64]bool{}
	}
	if err := pf.Each(func(r *metrics.Record) error {
		acc.Add(r)
		parts.Add(r)
		reps.Add(r)
		data.Add(r)
		if series != nil && !r.Warmup {
			series.Add(r)
		}
		if sent != nil && r.Err == nil {
			sent[r.Sent] = true
		}
		return nil
	}); err != nil {
		return nil, failure.Inputf("%s: %w", file, err)
	}
	out := &runtime.Outcome{Counting: counting, Summary: acc.Summary(), Components: parts.Summaries(), Replicas: reps.Summaries(), Goodput: slos, Series: series,
		Interrupted: saved != nil && saved.Partial || meta.Recovered} // a killed run's point is partial
	if saved != nil {
		out.Summary.Client = saved.Client // judged from the client's CPU while it ran
		out.Shard, out.Shards = saved.Shard, saved.Shards
		out.Steady = saved.Steady // decided while it ran; the warmup column re-applies its cut
	}
	dir := filepath.Dir(file)
	if meta.Recovered {
		repairExport(stderr, filepath.Join(dir, run.ProfileExportFile), &run, sent)
	}
	if out.Telemetry, err = ReadPointTelemetry(dir, &out.Summary, saved); err != nil {
		fmt.Fprintf(stderr, "llmbench: %s: %v (the point is rebuilt without its telemetry)\n", dir, err)
	}
	if err := describeTelemetry(&run, out); err != nil {
		return nil, failure.Runf("%w", err)
	}
	jsonName, csvName := exportNames(stderr, dir, run.ProfileExportFile, meta.Recovered, &out.Summary)
	if err := WriteFile(filepath.Join(dir, jsonName), func(w io.Writer) error { return genaiperf.WriteJSON(w, &run, &out.Summary) }); err != nil {
		return nil, failure.Runf("%w", err)
	}
	if err := WriteFile(filepath.Join(dir, csvName), func(w io.Writer) error { return genaiperf.WriteCSV(w, &run, &out.Summary) }); err != nil {
		return nil, failure.Runf("%w", err)
	}
	if opts.Plots {
		writeStoredPlots(stderr, dir, meta.Point, data, out.Telemetry)
	}
	if err := views.WriteConsole(stdout, opts.View, &run, &out.Summary); err != nil {
		return nil, err
	}
	writeComponents(stdout, out.Components)
	writeReplicas(stdout, out.Replicas)
	writeSessions(stdout, out.Summary.Sessions)
	writeShards(stdout, out.Shards)
	writeTelemetryLines(stdout, out)
	writeSteadyLine(stdout, out.Steady)
	return &storedPoint{file: file, meta: meta, run: run, out: out, record: saved}, nil
}

// writeStoredPlots draws a point's plots and its telemetry's; a plot that
// fails is reported, not fatal.
func writeStoredPlots(stderr io.Writer, dir, title string, data *plots.PointData, tel *runtime.PointTelemetry) {
	if _, err := plots.WritePointPlots(filepath.Join(dir, "plots"), title, data); err != nil {
		fmt.Fprintf(stderr, "llmbench: plots for %s: %v\n", dir, err)
	}
	if _, err := plots.WriteTelemetryPlots(filepath.Join(dir, "plots"), title, tel); err != nil {
		fmt.Fprintf(stderr, "llmbench: telemetry plot for %s: %v\n", dir, err)
	}
}

// baselineSeries is an empty series of what the point's baseline gates
// compare on, as the run kept it (Job.Track), so that a rebuild given a
// baseline (merge) judges them as the run would have; nil when the point
// has none. A report, which keeps the verdicts the run wrote, needs none.
func baselineSeries(saved *runtime.PointRecord) *metrics.Series {
	if saved == nil {
		return nil
	}
	exp, err := saved.Plan.Experiment()
	if err != nil {
		return nil // the rebuild reports it
	}
	track := exp.BaselineTrack()
	if len(track) == 0 {
		return nil
	}
	s, err := metrics.NewSeries(track...)
	if err != nil {
		return nil
	}
	return s
}

// ReadPointTelemetry rebuilds a point's telemetry from its
// telemetry.parquet, reduced over the summary's window as the run reduced
// it, priced as its saved plan says; nil when the point has none.
func ReadPointTelemetry(dir string, s *metrics.Summary, saved *runtime.PointRecord) (*runtime.PointTelemetry, error) {
	var cost float64
	var currency string
	if saved != nil {
		cost, currency = saved.Plan.Cost, saved.Plan.Currency
	}
	return readTelemetry(dir, s, cost, currency)
}

func readTelemetry(dir string, s *metrics.Summary, cost float64, currency string) (*runtime.PointTelemetry, error) {
	f, err := os.Open(filepath.Join(dir, records.TelemetryFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	samples, account, err := records.ReadTelemetry(f, st.Size())
	if err != nil {
		return nil, err
	}
	return runtime.RebuildTelemetry(samples, account, s, cost, currency)
}

// repairExport makes a valid copy of the raw export a killed run left cut
// mid-write, beside it (recoveredName), keeping the completed requests the
// recovered records hold, and says what it kept; the cut file itself is
// left as it is. A failure to do so is reported, not fatal, since the
// records are what every other report is rebuilt from.
func repairExport(stderr io.Writer, path string, run *genaiperf.Run, sent map[int64]bool) {
	b, err := os.ReadFile(path)
	if err != nil || json.Valid(b) {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "llmbench: %s: cannot repair: %v\n", path, err)
		}
		return
	}
	repairedPath := recoveredName(path)
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
		path, repairedPath, kept, len(sent), path)
}

// savedPlan decodes the file's saved plan; nil for a file of schema
// version 1, which has none.
func savedPlan(meta records.Meta) (*runtime.PointRecord, error) {
	if meta.PointRecord == "" {
		return nil, nil
	}
	rec, err := runtime.DecodePointRecord(meta.PointRecord)
	return &rec, err
}

// goodputAndCounting are the point's goodput SLOs and token counting: from
// its saved plan, or read back from the run description of a version 1
// file (see stored_v1.go).
func goodputAndCounting(saved *runtime.PointRecord, run *genaiperf.Run) ([]metrics.SLO, runtime.Counting, error) {
	if saved == nil {
		slos, err := goodputOf(run.Goodput)
		return slos, countingOf(run.TokenCounting), err
	}
	exp, err := saved.Plan.Experiment()
	if err != nil {
		return nil, runtime.Counting{}, err
	}
	return exp.Goodput, saved.Counting, nil
}

// openRecordsFile opens a records file for reading. One whose run was
// killed before it could write the footer is recovered beside it (see
// recoverBeside) and the recovered file is opened instead.
func openRecordsFile(stderr io.Writer, path string) (*os.File, int64, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, 0, err
	}
	if _, err := records.ReadMeta(f, size); !errors.Is(err, records.ErrNoFooter) {
		return f, size, nil // readable, or an error the reader will report
	}
	defer f.Close()
	return recoverBeside(stderr, f, path)
}

// openSized opens path for reading with its size, which the Parquet
// reader needs.
func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

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
	files, err := FindRecords(path)
	if err != nil || len(files) == 0 {
		return false, failure.New(failure.Input, err)
	}
	stored, lost, err := rerenderAll(stdout, stderr, files, RebuildOptions{View: view, Plots: true})
	if err != nil || len(stored) == 0 {
		return true, cmp.Or(err, lostPoints(lost))
	}
	return true, cmp.Or(reportSweeps(stdout, stderr, path, version, stored, lost), lostPoints(lost))
}

// rerenderAll re-renders every records file, each under its folder's
// heading. A point that a crash left without a single row (a run killed
// as the point began) is said and skipped, so the points measured before
// it are still reported; lost lists those files, for the caller to mark
// their runs partial and fail with lostPoints once the rest is written.
func rerenderAll(stdout, stderr io.Writer, files []string, opts RebuildOptions) (stored []*storedPoint, lost []string, err error) {
	stored = make([]*storedPoint, 0, len(files))
	for _, file := range files {
		fmt.Fprintf(stdout, "\n== %s ==\n", filepath.Dir(file))
		p, err := rerender(stdout, stderr, file, opts)
		if errors.Is(err, errNothingRecovered) {
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
