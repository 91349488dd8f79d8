package regression_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/regression"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/reports/storedrun/storedruntest"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
	runplan "github.com/llmbench/llmbench/runtime/plan"
)

// variant is what a test changes of the stored run writeRun writes.
type variant struct {
	sweep []float64
	edit  func(*runplan.Experiment)
	shape storedruntest.Shape
}

// writeRun writes a run of two experiments into a new folder: "chat"
// sweeping concurrency (1 and 2 unless v.sweep) and "solo" at one point,
// each plan changed by v.edit, each request of v.shape (1 ms TTFT and
// ITL unless set).
func writeRun(t *testing.T, v variant) string {
	t.Helper()
	out := t.TempDir()
	if v.sweep == nil {
		v.sweep = []float64{1, 2}
	}
	if v.shape.TTFT == 0 {
		v.shape.TTFT, v.shape.ITL = time.Millisecond, time.Millisecond
	}
	for _, plan := range []runplan.Experiment{storedruntest.Chat("chat", 6, v.sweep...), storedruntest.Chat("solo", 4)} {
		if v.edit != nil {
			v.edit(&plan)
		}
		storedruntest.Run(t, out, "s.star", plan, storedruntest.Same(storedruntest.Make(plan.Requests, v.shape)))
	}
	return out
}

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

func pairNames(m regression.Matching) []string {
	var out []string
	for _, p := range m.Pairs {
		out = append(out, p.Baseline.Name()+"="+p.Candidate.Name())
	}
	return out
}

// Two runs of one scenario match point by point by experiment and load;
// a load the candidate swept alone is listed as unmatched, not refused.
func TestRunFoldersMatchByExperimentAndLoad(t *testing.T) {
	base, cand := load(t, writeRun(t, variant{})), load(t, writeRun(t, variant{sweep: []float64{1, 2, 4}}))
	m := regression.Match(base, cand)
	want := []string{"chat / concurrency1=chat / concurrency1", "chat / concurrency2=chat / concurrency2", "solo / concurrency1=solo / concurrency1"}
	if got := pairNames(m); !slices.Equal(got, want) {
		t.Errorf("pairs %q, want %q", got, want)
	}
	if got := names(m.OnlyCandidate); !slices.Equal(got, []string{"chat / concurrency4"}) || len(m.OnlyBaseline) != 0 {
		t.Errorf("unmatched: baseline %q, candidate %q", names(m.OnlyBaseline), got)
	}
	if diffs, err := regression.Check(m, regression.CheckOptions{}); err != nil || len(diffs) != 0 {
		t.Errorf("Check = %v, %v; want no difference", diffs, err)
	}
}

// Every property that makes two runs incomparable is named with both
// sides' values, and the error is bad input (exit 2); Force makes them
// warnings.
func TestCheckNamesEveryDifference(t *testing.T) {
	base := load(t, writeRun(t, variant{}))
	cases := []struct {
		name string
		v    variant
		want []string // What of every difference expected
	}{
		{"model", variant{edit: func(p *runplan.Experiment) { p.Endpoint.Model = "other" }}, []string{"model"}},
		{"api", variant{edit: func(p *runplan.Experiment) { p.Endpoint.API = "completions" }}, []string{"endpoint type"}},
		{"stream", variant{edit: func(p *runplan.Experiment) { p.Endpoint.Stream = false }}, []string{"streaming"}},
		{"count", variant{edit: func(p *runplan.Experiment) { p.Endpoint.TokenCount = "chunks" }}, []string{"token counting"}},
		{"isl", variant{edit: func(p *runplan.Experiment) { p.Dataset = runplan.Described("synthetic(input_tokens = fixed(40))") }, shape: storedruntest.Shape{ISL: 40}},
			[]string{"dataset", "mean ISL"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := regression.Match(base, load(t, writeRun(t, c.v)))
			diffs, err := regression.Check(m, regression.CheckOptions{})
			var inc *regression.IncomparableError
			if !errors.As(err, &inc) || failure.ClassOf(err) != failure.Input {
				t.Fatalf("Check error %v, want an Input IncomparableError", err)
			}
			for _, d := range diffs {
				if !slices.Contains(c.want, d.What) {
					t.Errorf("unexpected difference %s", d)
				}
				if d.Baseline == d.Candidate || !strings.Contains(err.Error(), d.String()) {
					t.Errorf("difference %s not named in %v", d, err)
				}
			}
			for _, w := range c.want {
				if n := len(slices.DeleteFunc(slices.Clone(diffs), func(d regression.Difference) bool { return d.What != w || d.Point != "" })); n != 1 {
					t.Errorf("%d %q differences for the whole run in %v, want 1 (every point has it)", n, w, diffs)
				}
			}
			forced, err := regression.Check(m, regression.CheckOptions{Force: true})
			if err != nil || len(forced) != len(diffs) || slices.ContainsFunc(forced, func(d regression.Difference) bool { return !d.Warning }) {
				t.Errorf("forced: %v, %v; want the same differences as warnings", forced, err)
			}
		})
	}
}

// analyzeReqs are the requests of an analyze or profile point.
var analyzeReqs = storedruntest.Same(storedruntest.Make(4, storedruntest.Shape{TTFT: time.Millisecond, ITL: time.Millisecond}))

// An analyze folder's points match another's by experiment and load; a
// point folder's records file is a one-point run of the same point.
func TestAnalyzeFolderAndRecordsFile(t *testing.T) {
	a := storedruntest.Profile(t, t.TempDir(), storedruntest.Chat("m", 4, 1, 2), analyzeReqs)
	b := storedruntest.Profile(t, t.TempDir(), storedruntest.Chat("m", 4, 1, 2), analyzeReqs)
	m := regression.Match(load(t, a), load(t, b))
	if got, want := pairNames(m), []string{"m / concurrency1=m / concurrency1", "m / concurrency2=m / concurrency2"}; !slices.Equal(got, want) {
		t.Errorf("analyze pairs %q, want %q", got, want)
	}
	point := filepath.Join(a, "m-openai-chat-concurrency2")
	m = regression.Match(load(t, filepath.Join(point, "records.parquet")), load(t, b))
	if got := pairNames(m); !slices.Equal(got, []string{"m / concurrency2=m / concurrency2"}) || len(m.OnlyCandidate) != 1 {
		t.Errorf("records file vs analyze: pairs %q, unmatched %q", got, names(m.OnlyCandidate))
	}
	if _, err := regression.Check(m, regression.CheckOptions{}); err != nil {
		t.Errorf("records file vs analyze: %v", err)
	}
}

// Two profile points match when each run is one point, whatever their
// folders are called; a different load is then named.
func TestSingleProfilePointsMatch(t *testing.T) {
	two := storedruntest.Chat("m", 4)
	two.Load.Concurrency = 2
	m := regression.Match(load(t, storedruntest.Profile(t, t.TempDir(), storedruntest.Chat("m", 4), analyzeReqs)),
		load(t, storedruntest.Profile(t, t.TempDir(), two, analyzeReqs)))
	if len(m.Pairs) != 1 || len(m.OnlyBaseline)+len(m.OnlyCandidate) != 0 {
		t.Fatalf("pairs %q, unmatched %q %q", pairNames(m), names(m.OnlyBaseline), names(m.OnlyCandidate))
	}
	_, err := regression.Check(m, regression.CheckOptions{})
	if err == nil || !strings.Contains(err.Error(), "load: baseline concurrency 1, candidate concurrency 2") {
		t.Errorf("Check = %v, want the load named", err)
	}
}

// Runs that share no point are incomparable by their load points.
func TestNoSharedPointIsLoadPoints(t *testing.T) {
	m := regression.Match(load(t, writeRun(t, variant{})), &storedrun.Run{Points: []*storedrun.Point{{Experiment: "other", Params: runplan.Params{"concurrency": 8}}}})
	_, err := regression.Check(m, regression.CheckOptions{})
	if err == nil || !strings.Contains(err.Error(), "load points: baseline chat / concurrency1, chat / concurrency2, solo / concurrency1, candidate other / concurrency8") {
		t.Errorf("Check = %v", err)
	}
}

// An llmbench profile's own profile_export.json, imported, compares with
// its records without a difference; a different token counting is a
// warning, not an error, when one side is imported.
func TestExportAgainstRecords(t *testing.T) {
	dir := storedruntest.Profile(t, t.TempDir(), storedruntest.Chat("m", 4), analyzeReqs)
	point := filepath.Join(dir, "m-openai-chat-concurrency1")
	records := load(t, point)
	for _, count := range []string{"usage", "chunks"} {
		s, err := storedrun.Load(filepath.Join(point, "profile_export.json"), storedrun.Options{Import: storedrun.ImportOptions{TokenCount: count}})
		if err != nil {
			t.Fatal(err)
		}
		m := regression.Match(s, records)
		diffs, err := regression.Check(m, regression.CheckOptions{})
		if len(m.Pairs) != 1 || err != nil {
			t.Fatalf("%s: pairs %q, %v", count, pairNames(m), err)
		}
		for _, d := range diffs {
			if d.What != "token counting" || !d.Warning {
				t.Errorf("%s: difference %s (warning %v)", count, d, d.Warning)
			}
		}
	}
}

// Sets reads and compares one pair at a time; what it reports is what
// one comparison.Build of every pair, from every record held, reports.
func TestSetsPairByPairIsOneBuild(t *testing.T) {
	// Requests of 100 ms or more: a whole-run rate is cut into windows of
	// at least 100 ms (metrics.WindowRates).
	basePath := writeRun(t, variant{shape: storedruntest.Shape{TTFT: 30 * time.Millisecond, ITL: 10 * time.Millisecond}})
	candPath := writeRun(t, variant{shape: storedruntest.Shape{TTFT: 33 * time.Millisecond, ITL: 10 * time.Millisecond}})
	base, cand := load(t, basePath), load(t, candPath)
	opt := comparison.DefaultOptions()
	got, err := regression.Sets(base, cand, opt, false)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []comparison.Pair
	for _, p := range regression.Match(base, cand).Pairs {
		pairs = append(pairs, comparison.Pair{Experiment: p.Baseline.Experiment, Label: p.Baseline.Label(),
			Baseline: heldRuns(t, p.Baseline), Candidate: heldRuns(t, p.Candidate)})
	}
	want, err := comparison.Build(basePath, candPath, pairs, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Points) != 3 || !slices.Equal(got.Warnings, want.Warnings) {
		t.Fatalf("%d points, warnings %q; want 3, %q", len(got.Points), got.Warnings, want.Warnings)
	}
	for i := range want.Points {
		g, w := got.Points[i], want.Points[i]
		if g.Label != w.Label || len(g.Metrics) != len(w.Metrics) {
			t.Fatalf("point %d: %s with %d metrics, want %s with %d", i, g.Label, len(g.Metrics), w.Label, len(w.Metrics))
		}
		for j := range w.Metrics {
			if gs, ws := fmt.Sprintf("%+v", g.Metrics[j]), fmt.Sprintf("%+v", w.Metrics[j]); gs != ws {
				t.Errorf("%s %s:\n%s\nwant\n%s", g.Label, w.Metrics[j].Metric, gs, ws)
			}
		}
	}
}

// heldRuns are a point's runs with every record held, as compare read
// them before it read them pair by pair.
func heldRuns(t *testing.T, p *storedrun.Point) []metrics.RunData {
	t.Helper()
	out := make([]metrics.RunData, len(p.Repeats))
	for i, r := range p.Repeats {
		var recs []metrics.Record
		if err := r.Each(func(rec *metrics.Record) error { recs = append(recs, *rec); return nil }); err != nil {
			t.Fatal(err)
		}
		out[i] = metrics.RunData{Summary: &r.Outcome.Summary, Records: recs}
	}
	return out
}

// A stored run is the baseline of the experiment of the same name: its
// gates are judged against the baseline's same point, read from its
// records when judged; a run that measured another model is refused
// naming it, and a point it lacks too unless AllowMissing.
func TestBaselines(t *testing.T) {
	dir := writeRun(t, variant{})
	exp := func(edit func(*runplan.Experiment)) *runplan.Experiment {
		plan := storedruntest.Chat("chat", 6, 1, 2)
		plan.Gates = storedruntest.Gates(t, "ttft.p50 <= baseline * 1.10")
		if edit != nil {
			edit(&plan)
		}
		return &plan
	}
	b := regression.NewBaselines(dir, regression.BaselineOptions{}, storedrun.Options{})
	e := exp(nil)
	against, err := b.Attach(e)
	if err != nil || against == nil || b.ByExperiment["chat"] == nil {
		t.Fatalf("Attach = %v", err)
	}
	runs, err := against.Runs(runplan.Params{"concurrency": 2}, "")
	if err != nil || len(runs) != 1 || runs[0].Series.Len() != 6 {
		t.Fatalf("baseline runs of concurrency2: %v, %d", err, len(runs))
	}
	if _, err := against.Runs(runplan.Params{"concurrency": 8}, ""); !errors.Is(err, runtime.ErrNoBaselinePoint) {
		t.Errorf("a point the baseline lacks was found")
	}
	_, err = regression.NewBaselines(dir, regression.BaselineOptions{}, storedrun.Options{}).Attach(exp(func(p *runplan.Experiment) { p.Endpoint.Model = "other" }))
	if err == nil || failure.ClassOf(err) != failure.Input || !strings.Contains(err.Error(), "model: baseline m, this run other") {
		t.Errorf("another model: %v", err)
	}
	wider := func(p *runplan.Experiment) { p.Sweep.Params[0].Values = []float64{1, 2, 4} }
	_, err = regression.NewBaselines(dir, regression.BaselineOptions{}, storedrun.Options{}).Attach(exp(wider))
	if err == nil || !strings.Contains(err.Error(), "has no point concurrency4") {
		t.Errorf("a missing point: %v", err)
	}
	lenient := regression.NewBaselines(dir, regression.BaselineOptions{AllowMissing: true}, storedrun.Options{})
	if _, err := lenient.Attach(exp(wider)); err != nil || len(lenient.Warnings) != 1 {
		t.Errorf("a missing point allowed: %v, warnings %q", err, lenient.Warnings)
	}
}

// A baseline whose records cannot be read when its gates are judged (the
// folder changed after it was loaded) fails the gate with the read error
// in its verdict, instead of judging it on the summaries alone.
func TestBaselineUnreadableAtJudging(t *testing.T) {
	plan := storedruntest.Chat("chat", 6)
	plan.Repeats = 2
	dir := t.TempDir()
	storedruntest.Run(t, dir, "s.star", plan, storedruntest.Same(storedruntest.Make(6, storedruntest.Shape{TTFT: time.Millisecond, ITL: time.Millisecond})))
	plan.Gates = storedruntest.Gates(t, "ttft.p50 <= baseline * 1.10")
	e := &plan
	against, err := regression.NewBaselines(dir, regression.BaselineOptions{}, storedrun.Options{}).Attach(e)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "chat", "concurrency1", "*"+storedrun.RecordsFile))
	more, _ := filepath.Glob(filepath.Join(dir, "chat", "concurrency1", "*", storedrun.RecordsFile))
	files = append(files, more...)
	if len(files) != 2 {
		t.Fatalf("records files: %q", files)
	}
	for _, f := range files {
		if err := os.WriteFile(f, []byte("not parquet"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := runplan.Params{"concurrency": 1}
	outs := []*runtime.Outcome{candidate(t, e), candidate(t, e)}
	r := runtime.EvaluateGates(e, against, at, outs...)[0]
	if r.Passed || r.Err == nil || !strings.Contains(r.Err.Error(), "baseline "+dir) {
		t.Fatalf("gate judged on an unreadable baseline: passed %v, err %v, comparison %+v", r.Passed, r.Err, r.Comparison)
	}
}

// candidate is a run of 6 requests of 1 ms TTFT as the engine leaves it:
// a summary and the series e's baseline gates read.
func candidate(t *testing.T, e *runplan.Experiment) *runtime.Outcome {
	t.Helper()
	recs := storedruntest.Make(6, storedruntest.Shape{TTFT: time.Millisecond, ITL: time.Millisecond})
	s, err := metrics.NewSeries(e.BaselineTrack()...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		s.Add(&recs[i])
	}
	return &runtime.Outcome{Summary: metrics.Summarize(recs, metrics.Options{}), Series: s}
}
