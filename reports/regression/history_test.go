package regression_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/regression"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/reports/storedrun/storedruntest"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
	runplan "github.com/llmbench/llmbench/runtime/plan"
)

// mainRun is one run of the main branch a history test writes: its
// folder name, the day it ran, its TTFT (which tells the runs apart) and
// what else differs from the experiment's plan.
type mainRun struct {
	name string
	day  int
	ttft time.Duration
	edit func(*runplan.Experiment)
	isl  int
}

// historyPlan is the experiment of a history test: "chat" sweeping
// concurrency 1 and 2, 6 requests per run, a baseline gate on TTFT.
func historyPlan(t *testing.T, repeats int) runplan.Experiment {
	plan := storedruntest.Chat("chat", 6, 1, 2)
	plan.Repeats = repeats
	plan.Gates = storedruntest.Gates(t, "ttft.p50 <= baseline * 1.10")
	return plan
}

// writeHistory writes each run into its own folder of a new history
// folder, as the CI recipes keep the last runs of main, and returns it.
func writeHistory(t *testing.T, plan runplan.Experiment, runs ...mainRun) string {
	t.Helper()
	dir := t.TempDir()
	for _, r := range runs {
		p := plan
		p.Gates = nil
		if r.edit != nil {
			r.edit(&p)
		}
		start := time.Date(2026, 1, r.day, 0, 0, 0, 0, time.UTC)
		recs := storedruntest.Make(6, storedruntest.Shape{TTFT: r.ttft, ITL: time.Millisecond, ISL: r.isl, Start: start})
		storedruntest.Run(t, filepath.Join(dir, r.name), "s.star", p, storedruntest.Same(recs))
	}
	return dir
}

// ttfts are the mean TTFTs of runs, in milliseconds: which runs they are.
func ttfts(runs []metrics.RunData) []float64 {
	var out []float64
	for _, r := range runs {
		out = append(out, r.Summary.TimeToFirstToken.Avg/1e6)
	}
	return out
}

// A folder of five runs of main is a baseline whose every point gives
// the gates all five runs, oldest first (by when they ran, whatever the
// folders' names), each stored run's repeats counted as runs; the note
// says how many.
func TestBaselineHistoryGivesEveryRun(t *testing.T) {
	for _, repeats := range []int{1, 2} {
		plan := historyPlan(t, repeats)
		var runs []mainRun
		for i, name := range []string{"e", "d", "c", "b", "a"} { // named newest first
			runs = append(runs, mainRun{name: name, day: i + 1, ttft: time.Duration(10+i) * time.Millisecond})
		}
		dir := writeHistory(t, plan, runs...)
		b := regression.NewBaselines(dir, regression.BaselineOptions{}, storedrun.Options{})
		against, err := b.Attach(&plan)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []float64{1, 2} {
			got, err := against.Runs(runplan.Params{metrics.ParamConcurrency: c}, "")
			if err != nil || len(got) != 5*repeats {
				t.Fatalf("repeats %d: concurrency%g: %d runs (%v), want %d", repeats, c, len(got), err, 5*repeats)
			}
			if ms := ttfts(got); !slices.IsSorted(ms) || ms[0] >= ms[len(ms)-1] {
				t.Errorf("repeats %d: runs not oldest first: TTFT %v", repeats, ms)
			}
			if got[0].Series == nil {
				t.Errorf("repeats %d: the first run has no series to judge on", repeats)
			}
		}
		want := []string{"baseline of chat: " + map[int]string{1: "5 runs", 2: "10 runs"}[repeats] + " in " + dir + " (5 stored runs, e to a)"}
		if !slices.Equal(b.Notes, want) || len(b.Warnings) != 0 {
			t.Errorf("repeats %d: notes %q, warnings %q; want %q", repeats, b.Notes, b.Warnings, want)
		}
		if r := b.ByExperiment["chat"]; r == nil || r.Path != dir || len(r.Points) != 2 || len(r.Points[0].Repeats) != 5*repeats {
			t.Errorf("repeats %d: the run compared after the run: %+v", repeats, r)
		}
	}
}

// A run of the history that measured something else, one whose point is
// not comparable with the newest run's (another mean ISL), and one that
// lacks a point are left out, each named in a warning; a run of another
// size is kept, with a warning.
func TestBaselineHistoryLeavesOutIncomparable(t *testing.T) {
	plan := historyPlan(t, 1)
	dir := writeHistory(t, plan,
		mainRun{name: "1-model", day: 1, ttft: 10 * time.Millisecond, edit: func(p *runplan.Experiment) { p.Endpoint.Model = "other" }},
		mainRun{name: "2-isl", day: 2, ttft: 11 * time.Millisecond, isl: 40},
		mainRun{name: "3-one-point", day: 3, ttft: 12 * time.Millisecond, edit: func(p *runplan.Experiment) {
			p.Sweep = &runplan.Sweep{Params: []runplan.SweepParam{{Name: "concurrency", Values: []float64{2}}}}
		}},
		mainRun{name: "4-bigger", day: 4, ttft: 13 * time.Millisecond, edit: func(p *runplan.Experiment) { p.Requests = 7 }},
		mainRun{name: "5-newest", day: 5, ttft: 14 * time.Millisecond},
	)
	b := regression.NewBaselines(dir, regression.BaselineOptions{}, storedrun.Options{})
	against, err := b.Attach(&plan)
	if err != nil {
		t.Fatal(err)
	}
	for c, want := range map[float64][]float64{1: {13, 14}, 2: {12, 13, 14}} {
		got, err := against.Runs(runplan.Params{metrics.ParamConcurrency: c}, "")
		if ms := ttfts(got); err != nil || len(ms) != len(want) || int(ms[0]) != int(want[0]) {
			t.Errorf("concurrency%g: runs of TTFT %v (%v), want about %v", c, ms, err, want)
		}
	}
	for _, want := range []string{
		filepath.Join(dir, "1-model") + " measured something else: model: baseline other, this run m: left out of the baseline history",
		filepath.Join(dir, "2-isl") + ": chat / concurrency1 differs from the newest run's, " + filepath.Join(dir, "5-newest") + " (mean ISL: 40.0 tokens, newest 20.0 tokens): left out",
		filepath.Join(dir, "3-one-point") + " has no point chat / concurrency1",
		filepath.Join(dir, "4-bigger") + ": chat / concurrency1 differs from the newest run's, " + filepath.Join(dir, "5-newest") + " (size: 7 requests, repeats 1, newest 6 requests, repeats 1): kept",
	} {
		if !slices.ContainsFunc(b.Warnings, func(w string) bool { return strings.Contains(w, want) }) {
			t.Errorf("no warning %q in\n%s", want, strings.Join(b.Warnings, "\n"))
		}
	}
	if len(b.Notes) != 1 || !strings.Contains(b.Notes[0], "(3 stored runs, 3-one-point to 5-newest): chat / concurrency1 on 2 runs, chat / concurrency2 on 3 runs") {
		t.Errorf("notes %q", b.Notes)
	}
}

// A folder holding one run of main, in a folder of its own, is that run
// as a baseline, as a run folder given directly is: no note, no warning.
func TestBaselineHistoryOfOne(t *testing.T) {
	plan := historyPlan(t, 1)
	dir := writeHistory(t, plan, mainRun{name: "only", day: 1, ttft: 10 * time.Millisecond})
	for _, path := range []string{dir, filepath.Join(dir, "only")} {
		b := regression.NewBaselines(path, regression.BaselineOptions{}, storedrun.Options{})
		against, err := b.Attach(&plan)
		if err != nil {
			t.Fatal(err)
		}
		got, err := against.Runs(runplan.Params{metrics.ParamConcurrency: 2}, "")
		if err != nil || len(got) != 1 || len(b.Notes) != 0 || len(b.Warnings) != 0 || b.ByExperiment["chat"].Path != path {
			t.Errorf("%s: %d runs (%v), notes %q, warnings %q", path, len(got), err, b.Notes, b.Warnings)
		}
		if _, err := against.Runs(runplan.Params{metrics.ParamConcurrency: 8}, ""); !errors.Is(err, runtime.ErrNoBaselinePoint) {
			t.Errorf("%s: a point the baseline lacks: %v", path, err)
		}
	}
}

// An empty folder, a folder of no runs and a history none of whose runs
// fits are bad input naming the path (and each run), unless
// --allow-missing-baseline makes them warnings.
func TestBaselineHistoryRefusals(t *testing.T) {
	plan := historyPlan(t, 1)
	empty := t.TempDir()
	notRuns := t.TempDir()
	if err := os.MkdirAll(filepath.Join(notRuns, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notRuns, "logs", "notes.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := func(p *runplan.Experiment) { p.Endpoint.Model = "other" }
	unfit := writeHistory(t, plan, mainRun{name: "a", day: 1, ttft: time.Millisecond, edit: other}, mainRun{name: "b", day: 2, ttft: time.Millisecond, edit: other})
	for path, want := range map[string][]string{
		empty:   {empty + ": no records.parquet"},
		notRuns: {notRuns + ": no records.parquet"},
		unfit:   {"baseline " + unfit + ": none of its 2 runs can be the baseline: a, b measured something else: model: baseline other, this run m"},
	} {
		_, err := regression.NewBaselines(path, regression.BaselineOptions{}, storedrun.Options{}).Attach(&plan)
		if err == nil || failure.ClassOf(err) != failure.Input {
			t.Errorf("%s: %v, want an Input error", path, err)
			continue
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want %q", path, err, w)
			}
		}
		lenient := regression.NewBaselines(path, regression.BaselineOptions{AllowMissing: true}, storedrun.Options{})
		if against, err := lenient.Attach(&plan); err != nil || against != nil || len(lenient.Warnings) != 1 {
			t.Errorf("%s, allowed: %v, warnings %q", path, err, lenient.Warnings)
		}
	}
}

// Two runs of the same point that differ only in size are comparable:
// Check names the size difference as a warning, as docs/ci.md promises
// for a pull request run at another size than main's.
func TestCheckWarnsOfAnotherSize(t *testing.T) {
	base := load(t, writeRun(t, variant{}))
	for what, edit := range map[string]func(*runplan.Experiment){
		"requests": func(p *runplan.Experiment) { p.Requests++ },
		"repeats":  func(p *runplan.Experiment) { p.Repeats = 2 },
	} {
		cand := load(t, writeRun(t, variant{edit: edit}))
		diffs, err := regression.Check(regression.Match(base, cand), regression.CheckOptions{})
		if err != nil || len(diffs) == 0 || slices.ContainsFunc(diffs, func(d regression.Difference) bool {
			return d.What != "size" || !d.Warning || d.Baseline == d.Candidate
		}) {
			t.Errorf("%s: differences %v, error %v; want size warnings only", what, diffs, err)
		}
	}
}

// JoinHistory joins a history of runs of several experiments, as
// LoadHistory reads a folder of them, point by point: every point of
// every experiment holds the runs of it in each run, oldest first.
func TestJoinHistoryEveryExperiment(t *testing.T) {
	dir := t.TempDir()
	for day, name := range []string{"b", "a"} { // b ran first
		shape := storedruntest.Shape{TTFT: time.Duration(day+1) * time.Millisecond, ITL: time.Millisecond, Start: time.Date(2026, 1, day+1, 0, 0, 0, 0, time.UTC)}
		for _, plan := range []runplan.Experiment{storedruntest.Chat("chat", 6, 1, 2), storedruntest.Chat("solo", 4)} {
			storedruntest.Run(t, filepath.Join(dir, name), "s.star", plan, storedruntest.Same(storedruntest.Make(plan.Requests, shape)))
		}
	}
	runs, err := storedrun.LoadHistory(dir, storedrun.Options{})
	if err != nil || len(runs) != 2 || filepath.Base(runs[0].Path) != "b" {
		t.Fatalf("LoadHistory: %d runs, %v", len(runs), err)
	}
	joined, warnings, note := regression.JoinHistory(dir, runs)
	if got := names(joined.Points); !slices.Equal(got, []string{"chat / concurrency1", "chat / concurrency2", "solo / concurrency1"}) {
		t.Errorf("points %q", got)
	}
	for _, p := range joined.Points {
		got, err := p.Runs(nil, "")
		if ms := ttfts(got); err != nil || len(ms) != 2 || !(ms[0] < ms[1]) {
			t.Errorf("%s: TTFT of its runs %v (%v), want 2 runs oldest first", p.Name(), ms, err)
		}
	}
	if note != "2 runs in "+dir+" (2 stored runs, b to a)" || len(warnings) != 0 {
		t.Errorf("note %q, warnings %q", note, warnings)
	}
}
