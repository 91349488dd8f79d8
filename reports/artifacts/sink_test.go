package artifacts

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
)

// A point's sink streams its records into the point's folder as they
// finish and completes the files when the point ends: records.parquet
// reads back every record with the saved plan and run description,
// profile_export.json and inputs.json are there, and the plots it drew
// are the files written, kept for the page. No server: the records are
// made here.
func TestSinkWritesThePointsFiles(t *testing.T) {
	exp := experiment()
	key := runtime.PointKey{Experiment: "e", Params: plan.Params{metrics.ParamConcurrency: 1}, Repeat: 1}
	dir := pointDir(t.TempDir(), "e", key.Params)
	recs := streamed(30)
	run := scenarioRun(exp, key.Params, &runtime.Outcome{}, "v0.0.0-test")
	job := &runtime.Job{Requests: []engine.Request{{Body: []byte(`{"messages":[]}`)}}, Count: runtime.ByUsage}
	drawn := &PointPlots{}
	sink, err := openPointSink(dir, &run, records.Meta{Scenario: "s", Experiment: "e", Point: key.Params.Label(), Repeat: 1},
		runtime.RecordOf("s", exp, key, 0), job, SinkOptions{Plots: true, Version: "v0.0.0-test", Drawn: drawn})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(recs); i += 7 {
		if err := sink.Write(recs[i:min(i+7, len(recs))]...); err != nil {
			t.Fatal(err)
		}
	}
	out := outcome(recs)
	out.Counting = runtime.Counting{Mode: runtime.ByUsage}
	var stderr bytes.Buffer
	if err := sink.Finish(&stderr, &run, out, "e / concurrency1"); err != nil || stderr.Len() > 0 {
		t.Fatalf("finish: %v %s", err, stderr.String())
	}

	f, err := os.Open(filepath.Join(dir, recordsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	n := 0
	meta, err := records.ReadEach(f, fi.Size(), func(*metrics.Record) error { n++; return nil })
	if err != nil || n != len(recs) {
		t.Fatalf("records.parquet holds %d records (%v), want %d", n, err, len(recs))
	}
	var saved runtime.PointRecord
	if err := json.Unmarshal([]byte(meta.PointRecord), &saved); err != nil || saved.Plan.Name != "e" || saved.Counting.Mode != runtime.ByUsage {
		t.Errorf("saved plan %+v (%v)", saved.Plan, err)
	}
	for _, name := range []string{"inputs.json", run.ProfileExportFile} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s not written (%v)", name, err)
		}
	}
	kept, err := drawn.of(dir)
	if err != nil || len(kept.plots) < 5 {
		t.Fatalf("kept %d plots (%v), want the point's plots", len(kept.plots), err)
	}
	for _, img := range kept.plots {
		if b, err := os.ReadFile(filepath.Join(dir, plotsDir, img.Name)); err != nil || !bytes.Equal(b, img.PNG) {
			t.Errorf("%s: the plot kept is not the file written (%v)", img.Name, err)
		}
	}
}

// A point that never ran leaves no files behind.
func TestSinkAbandonRemovesItsFiles(t *testing.T) {
	exp := experiment()
	key := runtime.PointKey{Experiment: "e", Params: plan.Params{metrics.ParamConcurrency: 1}, Repeat: 1}
	dir := pointDir(t.TempDir(), "e", key.Params)
	run := scenarioRun(exp, key.Params, &runtime.Outcome{}, "v0.0.0-test")
	sink, err := openPointSink(dir, &run, records.Meta{}, runtime.RecordOf("s", exp, key, 0), &runtime.Job{}, SinkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sink.Abandon()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Errorf("%s left behind", e.Name())
	}
}
