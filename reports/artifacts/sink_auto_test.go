package artifacts

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/reports/views"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
)

// autoSink opens the sink of an auto (steady-state) point in a new
// folder; fixed is the same point with a request count.
func autoSink(t *testing.T, auto bool) (*pointSink, string) {
	t.Helper()
	exp := experiment()
	key := runtime.PointKey{Experiment: "e", Params: plan.Params{metrics.ParamConcurrency: 1}, Repeat: 1}
	dir := pointDir(t.TempDir(), "e", key.Params)
	run := scenarioRun(exp, key.Params, &runtime.Outcome{}, "v0.0.0-test")
	job := &runtime.Job{Requests: []engine.Request{{Body: []byte(`{"messages":[]}`)}}, Count: runtime.ByUsage}
	if auto {
		rule := metrics.SteadyRule{CI: 0.05, Confidence: 0.95, MinRequests: 100, MaxRequests: 1000}
		job.Point.Stop.Steady = &rule
	}
	sink, err := openPointSink(dir, &run, records.Meta{Scenario: "s", Experiment: "e", Point: key.Params.Label(), Repeat: 1},
		runtime.RecordOf("s", exp, key, 0), job, SinkOptions{Version: "v0.0.0-test"})
	if err != nil {
		t.Fatal(err)
	}
	return sink, dir
}

// finishSink ends a sink's point with the outcome of recs.
func finishSink(t *testing.T, sink *pointSink, recs []metrics.Record, steady *runtime.SteadyOutcome) {
	t.Helper()
	exp := experiment()
	run := scenarioRun(exp, plan.Params{metrics.ParamConcurrency: 1}, &runtime.Outcome{}, "v0.0.0-test")
	out := outcome(recs)
	out.Counting, out.Steady = runtime.Counting{Mode: runtime.ByUsage}, steady
	if err := sink.Finish(io.Discard, &run, out, "e"); err != nil {
		t.Fatal(err)
	}
}

// readStored reads a point's records through storedrun, as report,
// compare and resume read them.
func readStored(t *testing.T, dir string, stderr io.Writer) (*storedrun.Repeat, []metrics.Record) {
	t.Helper()
	rep, err := storedrun.OpenFile(stderr, filepath.Join(dir, recordsFile))
	if err != nil {
		t.Fatal(err)
	}
	var recs []metrics.Record
	if err := rep.Each(func(r *metrics.Record) error { recs = append(recs, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	return rep, recs
}

// An auto point's records reach the sink unflagged as they finish (its
// warm-up cut is known when it ends): records.parquet takes them at
// once, and when the point ends its files read back as those of the
// same records flagged and written at the end, as before: the same
// profile_export.json byte for byte (no warm-up request in it), and the
// same rows, the warm-up flagged, through the stored-run reader.
func TestAutoPointSinkWritesAsItGoesAndCutsAtTheEnd(t *testing.T) {
	const warmup = 4
	recs := streamed(30)
	flagged := append([]metrics.Record(nil), recs...)
	for i := range warmup {
		flagged[i].Warmup = true
	}
	steady := &runtime.SteadyOutcome{Warmup: warmup, Measured: len(recs), WarmupMethod: "MSER-5"}

	before, beforeDir := autoSink(t, false) // the records as an auto point wrote them before
	if err := before.Write(flagged...); err != nil {
		t.Fatal(err)
	}
	finishSink(t, before, flagged, steady)

	sink, dir := autoSink(t, true)
	if err := sink.Write(recs...); err != nil {
		t.Fatal(err)
	}
	if err := sink.records.Flush(); err != nil { // a row group ends while the point runs
		t.Fatal(err)
	}
	if n := rowsWritten(t, filepath.Join(dir, recordsFile)); n != len(recs) {
		t.Errorf("records.parquet holds %d rows before the point ends, want %d", n, len(recs))
	}
	finishSink(t, sink, recs, steady)

	for _, name := range []string{"profile_export.json"} {
		want, err := os.ReadFile(filepath.Join(beforeDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from the one written from flagged records (%v):\n%s\nwant\n%s", name, err, got, want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "profile_export.*-*.json")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	_, want := readStored(t, beforeDir, nil)
	rep, got := readStored(t, dir, nil)
	if len(got) != len(want) {
		t.Fatalf("read %d records, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Warmup != want[i].Warmup || got[i].ID != want[i].ID {
			t.Errorf("row %d: id %d warmup %v, want id %d warmup %v", i, got[i].ID, got[i].Warmup, want[i].ID, want[i].Warmup)
		}
	}
	out, err := rep.Reduce(storedrun.ReduceOptions{})
	if err != nil || out.Summary.Warmup != warmup || out.Summary.Completed+out.Summary.Failed != len(recs)-warmup {
		t.Errorf("reduced to %d warm-up, %d measured (%v), want %d and %d", out.Summary.Warmup,
			out.Summary.Completed+out.Summary.Failed, err, warmup, len(recs)-warmup)
	}
}

// rowsWritten counts the rows of a records file still being written: a
// copy of it, recovered (its footer comes at the end).
func rowsWritten(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := records.Recover(f, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return int(info.Rows)
}

// A killed auto point keeps the records it wrote: report recovers them
// beside the file, every row read as measured (its warm-up cut was never
// decided: the recovered footer holds the plan as the point began), the
// point partial; its export entries, which waited for the cut, are
// repaired into profile_export.recovered.json.
func TestKilledAutoPointIsRecovered(t *testing.T) {
	recs := streamed(300) // more export entries than the held file's buffer
	sink, dir := autoSink(t, true)
	if err := sink.Write(recs...); err != nil {
		t.Fatal(err)
	}
	if err := sink.records.Flush(); err != nil {
		t.Fatal(err)
	}
	sink.parquet.Close() // killed: no footer
	sink.exportFile.Close()
	var stderr bytes.Buffer
	rep, got := readStored(t, dir, &stderr)
	if !strings.Contains(stderr.String(), "recovered") || !rep.Partial || rep.Plan == nil || rep.Plan.Steady != nil {
		t.Errorf("recovered %+v, partial %v, stderr %q: want a partial point without a steady outcome", rep.Plan, rep.Partial, stderr.String())
	}
	if len(got) != len(recs) {
		t.Fatalf("recovered %d records, want %d", len(got), len(recs))
	}
	for i, r := range got {
		if r.Warmup {
			t.Errorf("row %d read as warm-up: the cut was never decided", i)
		}
	}
	if _, err := os.Stat(storedrun.RecoveredName(filepath.Join(dir, recordsFile))); err != nil {
		t.Errorf("not recovered beside it: %v", err)
	}

	stderr.Reset()
	if _, err := rerender(io.Discard, &stderr, filepath.Join(dir, recordsFile), RebuildOptions{View: views.GenAIPerf}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(storedrun.RecoveredName(filepath.Join(dir, "profile_export.json")))
	if err != nil {
		t.Fatalf("export not repaired: %v\n%s", err, stderr.String())
	}
	var doc struct {
		Experiments []struct {
			Requests []struct{ Timestamp int64 }
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Experiments) != 1 || len(doc.Experiments[0].Requests) == 0 {
		t.Fatalf("repaired export: %v, %d experiments\n%s", err, len(doc.Experiments), stderr.String())
	}
	for i, r := range doc.Experiments[0].Requests {
		if r.Timestamp != recs[i].Sent {
			t.Fatalf("repaired request %d sent at %d, want %d: the written requests in order, none left out", i, r.Timestamp, recs[i].Sent)
		}
	}
	t.Logf("%d of %d requests repaired; %s", len(doc.Experiments[0].Requests), len(recs), stderr.String())
}
