package storedrun_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/reports/storedrun/storedruntest"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
)

// writeRun writes a run of two experiments of scenario s.star into a new
// folder: "chat" sweeping concurrency 1 and 2 (repeats times) and "solo"
// at one point, their requests 1 ms apart from start.
func writeRun(t *testing.T, repeats int, start time.Time) string {
	t.Helper()
	out := t.TempDir()
	reqs := func(n int) storedruntest.Requests {
		return func(key runtime.PointKey) []metrics.Record {
			return storedruntest.Make(n, storedruntest.Shape{TTFT: time.Millisecond, ITL: time.Millisecond, Start: start.Add(time.Duration(key.Repeat) * time.Second)})
		}
	}
	chat := storedruntest.Chat("chat", 6, 1, 2)
	chat.Repeats = repeats
	storedruntest.Run(t, out, "s.star", chat, reqs(6))
	storedruntest.Run(t, out, "s.star", storedruntest.Chat("solo", 4), reqs(4))
	return out
}

var jan1 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func load(t *testing.T, path string) *storedrun.Run {
	t.Helper()
	r, err := storedrun.Load(path, storedrun.Options{})
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	return r
}

func names(points []*storedrun.Point) []string {
	var out []string
	for _, p := range points {
		out = append(out, p.Name())
	}
	return out
}

// A run folder opens as its points in experiment and load order, each
// described by its saved plan and summarised from its records.
func TestRunFolder(t *testing.T) {
	r := load(t, writeRun(t, 1, jan1))
	if got, want := names(r.Points), []string{"chat / concurrency1", "chat / concurrency2", "solo / concurrency1"}; !slices.Equal(got, want) {
		t.Fatalf("points %q, want %q", got, want)
	}
	d := r.Points[0].Desc
	if !slices.Equal(d.Models, []string{"m"}) || d.API != "chat" || !d.Stream || d.MeanISL != 20 || d.MeanOSL != 8 || d.Load != "concurrency 1" || d.Dataset == "" {
		t.Errorf("description %+v", d)
	}
	rep := r.Points[0].Repeats[0]
	if rep.Plan == nil || rep.Outcome.Summary.Completed != 6 || rep.Counting.Mode != runtime.ByUsage {
		t.Errorf("repeat: plan %v, %d completed, counting %v", rep.Plan != nil, rep.Outcome.Summary.Completed, rep.Counting)
	}
	if want := jan1.Add(time.Second); !r.Start.Equal(want) {
		t.Errorf("start %v, want %v", r.Start, want)
	}
}

// Repeats of a point are one point whose repeats keep their order; Runs
// gives each repeat's summary and the first repeat's series, read from
// its records, enough for a comparison's statistics.
func TestRepeatsAndRuns(t *testing.T) {
	r := load(t, writeRun(t, 3, jan1))
	p := r.Points[0]
	if len(p.Repeats) != 3 {
		t.Fatalf("%s: %d repeats, want 3", p.Name(), len(p.Repeats))
	}
	for k, rep := range p.Repeats {
		if rep.Index != k+1 || rep.Outcome.Summary.Completed != 6 {
			t.Errorf("repeat %d: index %d, %d completed", k+1, rep.Index, rep.Outcome.Summary.Completed)
		}
	}
	runs, err := p.Runs([]*metrics.Metric{metrics.ITL}, "")
	if err != nil || len(runs) != 3 || runs[1].Summary != &p.Repeats[1].Outcome.Summary || runs[0].Series.Len() != 6 || runs[1].Series != nil {
		t.Fatalf("Runs = %d runs, %v", len(runs), err)
	}
	if g, err := metrics.BaselineGate("itl.p99", 0.1); err != nil {
		t.Fatal(err)
	} else if _, err := g.Sample(runs); err != nil {
		t.Errorf("itl.p99's sample: %v", err)
	}
}

// Reduce streams a repeat's records into what the run reduced them to:
// the same summary, the series of the tracked metrics, every record seen.
func TestReduce(t *testing.T) {
	out := t.TempDir()
	recs := storedruntest.Make(10, storedruntest.Shape{TTFT: 2 * time.Millisecond, ITL: time.Millisecond, Failed: 2})
	storedruntest.Run(t, out, "s.star", storedruntest.Chat("e", 10), storedruntest.Same(recs))
	rep, err := storedrun.OpenFile(nil, filepath.Join(out, "e", "concurrency1", "records.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	o, err := rep.Reduce(storedrun.ReduceOptions{Track: []*metrics.Metric{metrics.TTFT}, Observe: func(*metrics.Record) { seen++ }})
	if err != nil {
		t.Fatal(err)
	}
	want := metrics.Summarize(recs, metrics.Options{})
	if seen != 10 || o.Summary.Completed != 8 || o.Summary.Failed != 2 || o.Series.Len() != 10 || o.Summary.TimeToFirstToken.P99 != want.TimeToFirstToken.P99 {
		t.Errorf("seen %d, completed %d, failed %d, series %d, ttft p99 %v want %v", seen, o.Summary.Completed, o.Summary.Failed, o.Series.Len(), o.Summary.TimeToFirstToken.P99, want.TimeToFirstToken.P99)
	}
}

// A profile folder is one point of no experiment, its load from its
// plan; an analyze folder's points belong to its experiment.
func TestProfileAndAnalyzeFolders(t *testing.T) {
	reqs := storedruntest.Same(storedruntest.Make(4, storedruntest.Shape{TTFT: time.Millisecond, ITL: time.Millisecond}))
	prof := load(t, storedruntest.Profile(t, t.TempDir(), storedruntest.Chat("m", 4), reqs))
	if got := names(prof.Points); !slices.Equal(got, []string{"concurrency1"}) || prof.Points[0].Experiment != "" {
		t.Errorf("profile points %q", got)
	}
	an := load(t, storedruntest.Profile(t, t.TempDir(), storedruntest.Chat("m", 4, 1, 2), reqs))
	if got := names(an.Points); !slices.Equal(got, []string{"m / concurrency1", "m / concurrency2"}) {
		t.Errorf("analyze points %q", got)
	}
}

// Every records schema version in the fixtures opens, its plan saved or
// (version 1) read back from its run description, and its records sum up.
func TestEverySchemaVersion(t *testing.T) {
	plans := map[string]string{}
	for _, v := range []string{"v1", "v2", "v3", "v4", "v5", "v6"} {
		t.Run(v, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), v)
			copyFile(t, "../records/testdata/fixtures/"+v+".parquet", filepath.Join(dir, "records.parquet"))
			r := load(t, dir)
			if len(r.Points) != 1 || len(r.Points[0].Repeats) != 1 {
				t.Fatalf("%d points", len(r.Points))
			}
			rep := r.Points[0].Repeats[0]
			if (rep.Plan == nil) != (v == "v1") || rep.Outcome.Summary.Completed == 0 || len(rep.Params) == 0 {
				t.Errorf("plan %v, %d completed, params %v", rep.Plan != nil, rep.Outcome.Summary.Completed, rep.Params)
			}
			if rep.Plan != nil {
				enc, err := rep.Plan.Encode()
				if err != nil {
					t.Fatal(err)
				}
				plans[v] = enc
			}
		})
	}
	// Version 6 stores the plan as the plan's own JSON, version 2 to 5 as
	// the mirror it replaced: the fixtures hold the same plan, read alike.
	if plans["v5"] == "" || plans["v5"] != plans["v6"] {
		t.Errorf("the plan of v5 reads as\n%s\nthat of v6 as\n%s", plans["v5"], plans["v6"])
	}
}

// A GenAI-Perf export is imported as `report` imports it: one point of
// no experiment, its model from the payloads, its load from the export.
func TestGenAIPerfExport(t *testing.T) {
	r := load(t, "../../runtime/paexport/testdata/example_profile_export.json")
	if len(r.Points) != 1 {
		t.Fatalf("%d points", len(r.Points))
	}
	p := r.Points[0]
	d := p.Desc
	if p.Name() != "concurrency2" || !d.Imported || !slices.Equal(d.Models, []string{"my/model"}) || d.API != "chat" || !d.Stream ||
		len(p.Repeats) != 1 || p.Repeats[0].Outcome.Summary.Completed != 2 || r.Start.UnixNano() != 1000000 {
		t.Errorf("imported %s: %+v, start %d", p.Name(), d, r.Start.UnixNano())
	}
}

// Two files claiming the same run of the same point (a point folder
// copied inside its run) are refused naming both, not silently pooled.
func TestSameRepeatTwiceRefused(t *testing.T) {
	out := writeRun(t, 1, jan1)
	src := filepath.Join(out, "solo", "concurrency1", "records.parquet")
	copied := filepath.Join(out, "solo", "copy", "records.parquet")
	copyFile(t, src, copied)
	_, err := storedrun.Open(out, storedrun.Options{})
	if err == nil || failure.ClassOf(err) != failure.Input || !strings.Contains(err.Error(), src) || !strings.Contains(err.Error(), copied) {
		t.Errorf("Open = %v, want an Input error naming both files", err)
	}
}

// A path holding nothing to read is bad input naming it.
func TestNothingToOpen(t *testing.T) {
	dir := t.TempDir()
	_, err := storedrun.Open(dir, storedrun.Options{})
	if err == nil || failure.ClassOf(err) != failure.Input || !strings.Contains(err.Error(), dir) {
		t.Errorf("Open(empty) = %v", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// move renames the folder from into dir/name and returns the new path.
func move(t *testing.T, from, dir, name string) string {
	t.Helper()
	to := filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
	return to
}

func paths(runs []*storedrun.Run) []string {
	var out []string
	for _, r := range runs {
		out = append(out, r.Path)
	}
	return out
}

// A folder of run folders is a history of them, in name order, folders
// holding no result (logs/) passed over; a run folder, a profile
// artifact folder and a records file stay one run each.
func TestLoadHistoryExpandsAFolderOfRuns(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "history")
	tue := move(t, writeRun(t, 1, jan1), hist, "tue")
	mon := move(t, writeRun(t, 1, jan1), hist, "mon")
	if err := os.MkdirAll(filepath.Join(hist, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hist, "logs", "ci.txt"), []byte("log"), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err := storedrun.LoadHistory(hist, storedrun.Options{})
	if err != nil {
		t.Fatalf("LoadHistory(history): %v", err)
	}
	if got := paths(runs); !slices.Equal(got, []string{mon, tue}) {
		t.Fatalf("history of %q, want mon and tue", got)
	}
	for _, r := range runs {
		if len(r.Points) != 3 || r.Start.IsZero() {
			t.Errorf("%s: %d points, start %v", r.Path, len(r.Points), r.Start)
		}
	}
	reqs := storedruntest.Same(storedruntest.Make(4, storedruntest.Shape{TTFT: time.Millisecond}))
	prof := storedruntest.Profile(t, t.TempDir(), storedruntest.Chat("m", 4), reqs)
	for _, one := range []string{mon, prof, filepath.Join(mon, "solo", "concurrency1", "records.parquet")} {
		if runs, err := storedrun.LoadHistory(one, storedrun.Options{}); err != nil || len(runs) != 1 || runs[0].Path != one {
			t.Errorf("LoadHistory(%s) = %q, %v; want the one run", one, paths(runs), err)
		}
	}
}

// A folder of GenAI-Perf export folders is a history too: Open finds no
// records file in it and no export at its top.
func TestLoadHistoryOfExports(t *testing.T) {
	hist := t.TempDir()
	for _, run := range []string{"a", "b"} {
		copyFile(t, "../../runtime/paexport/testdata/example_profile_export.json", filepath.Join(hist, run, "profile_export.json"))
	}
	runs, err := storedrun.LoadHistory(hist, storedrun.Options{})
	if err != nil || len(runs) != 2 || !runs[0].Points[0].Desc.Imported {
		t.Fatalf("LoadHistory(exports) = %q, %v", paths(runs), err)
	}
}

// A run of a history that does not load is an error naming its files,
// not a run silently left out; a folder with nothing to compare names
// itself and what it should hold.
func TestLoadHistoryErrors(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "history")
	move(t, writeRun(t, 1, jan1), hist, "mon")
	tue := move(t, writeRun(t, 1, jan1), hist, "tue")
	src := filepath.Join(tue, "solo", "concurrency1", "records.parquet")
	copied := filepath.Join(tue, "solo", "copy", "records.parquet")
	copyFile(t, src, copied)
	if _, err := storedrun.LoadHistory(hist, storedrun.Options{}); err == nil || failure.ClassOf(err) != failure.Input ||
		!strings.Contains(err.Error(), src) || !strings.Contains(err.Error(), copied) {
		t.Errorf("LoadHistory with a broken run = %v, want an Input error naming both files", err)
	}
	empty := t.TempDir()
	if err := os.MkdirAll(filepath.Join(empty, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := storedrun.LoadHistory(empty, storedrun.Options{})
	if err == nil || failure.ClassOf(err) != failure.Input || !strings.Contains(err.Error(), empty) || !strings.Contains(err.Error(), "a folder of those (a history)") {
		t.Errorf("LoadHistory(nothing) = %v", err)
	}
}

// A records file whose footer a kill cut off is recovered beside it,
// never over it, and read from there as a partial run (cuts elsewhere,
// and a recovery of nothing, are `report`'s tests:
// cmd/llmbench/report_recover_test.go).
func TestKilledFileRecoveredBeside(t *testing.T) {
	out := t.TempDir()
	storedruntest.Run(t, out, "s.star", storedruntest.Chat("e", 10), storedruntest.Same(storedruntest.Make(10, storedruntest.Shape{TTFT: time.Millisecond})))
	path := filepath.Join(out, "e", "concurrency1", "records.parquet")
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := full[:len(full)-1]
	if err := os.WriteFile(path, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := storedrun.OpenFile(nil, path)
	if err != nil {
		t.Fatal(err)
	}
	o, err := rep.Reduce(storedrun.ReduceOptions{})
	if err != nil || !rep.Partial || !o.Interrupted || o.Summary.Completed != 10 {
		t.Fatalf("recovered: partial %v, %+v, %v", rep.Partial, o, err)
	}
	if after, _ := os.ReadFile(path); !slices.Equal(after, cut) {
		t.Error("the cut file was changed")
	}
	if _, err := os.Stat(storedrun.RecoveredName(path)); err != nil {
		t.Errorf("nothing recovered beside it: %v", err)
	}
}

// An auto point's warm-up requests (the rows its steady-state rule cut,
// kept in records.parquet) are in no metric: not in the series a
// comparison bootstraps (compare, baseline gates) nor in the one a
// resumed point's baseline gates are judged on, as the live run leaves
// them out of its own.
func TestSeriesLeaveOutWarmup(t *testing.T) {
	out := t.TempDir()
	recs := storedruntest.Make(10, storedruntest.Shape{TTFT: time.Millisecond, ITL: time.Millisecond})
	for i := range 3 {
		recs[i].Warmup = true
	}
	storedruntest.Run(t, out, "s.star", storedruntest.Chat("e", 10), storedruntest.Same(recs))
	r := load(t, out)
	runs, err := r.Points[0].Runs([]*metrics.Metric{metrics.TTFT}, "")
	if err != nil || runs[0].Series.Len() != 7 {
		t.Errorf("compare's series: %d requests, want the 7 measured (%v)", runs[0].Series.Len(), err)
	}
	s, err := storedrun.Series(filepath.Join(out, "e", "concurrency1", "records.parquet"), []*metrics.Metric{metrics.TTFT})
	if err != nil || s.Len() != 7 {
		t.Errorf("a resumed point's series: %d requests, want the 7 measured (%v)", s.Len(), err)
	}
	if c := r.Points[0].Repeats[0].Outcome.Summary.Completed; c != 7 {
		t.Errorf("summary: %d completed, want 7", c)
	}
}
