package resultset

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/failure"
)

// binary is llmbench built once for the package's tests: result sets are
// made by the real commands against the simulator, not by hand.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "llmbench-resultset")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "llmbench")
	if out, err := exec.Command("go", "build", "-o", binary, "../../cmd/llmbench").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building llmbench: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fastSim answers at once, so the tests wait for nothing.
const fastSim = "sim://?ttft=1ms&itl=0ms"

// scenario has two experiments: "chat" sweeping concurrency (-D sweep)
// and "solo" at one point; every comparability property is a -D var.
// Its simulator streams with no gap between tokens (-D itl changes it).
const scenario = `
def main(ctx):
    v = ctx.vars
    ep = endpoint(url = "sim://?ttft=1ms&itl=" + v.get("itl", "0ms"), model = v.get("model", "m"), api = v.get("api", "chat"),
                  stream = v.get("stream", "true") == "true", token_count = v.get("count", "auto"))
    ds = synthetic(input_tokens = fixed(int(v.get("isl", "20"))), output_tokens = fixed(8))
    sw = [int(c) for c in v.get("sweep", "1,2").split(",")]
    return [
        experiment(name = "chat", endpoint = ep, dataset = ds, traffic = concurrency(1),
                   sweep = sweep(concurrency = sw), requests = 6, repeats = int(v.get("repeats", "1"))),
        experiment(name = "solo", endpoint = ep, dataset = ds, traffic = concurrency(1), requests = 4),
    ]
`

// llmbench runs the binary in dir and fails the test unless it exits 0.
func llmbench(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("llmbench %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// run runs the scenario with vars into a new folder and returns it.
func run(t *testing.T, vars ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.star"), []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "s.star", "--out", "out"}
	for _, v := range vars {
		args = append(args, "-D", v)
	}
	llmbench(t, dir, args...)
	return filepath.Join(dir, "out")
}

// profile runs `profile` with args and returns its artifact folder.
func profile(t *testing.T, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	llmbench(t, dir, append([]string{"profile", "-m", "m", "-u", fastSim, "--request-count", "6"}, args...)...)
	return filepath.Join(dir, "artifacts")
}

func load(t *testing.T, path string) *Set {
	t.Helper()
	s, err := Load(path, Options{})
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	return s
}

// names lists points by Name, for assertions.
func names(points []*Point) []string {
	var out []string
	for _, p := range points {
		out = append(out, p.Name())
	}
	return out
}

func pairNames(m Matching) []string {
	var out []string
	for _, p := range m.Pairs {
		out = append(out, p.Baseline.Name()+"="+p.Candidate.Name())
	}
	return out
}

// Two runs of one scenario match point by point by experiment and load;
// a load the candidate swept alone is listed as unmatched, not refused.
func TestRunFoldersMatchByExperimentAndLoad(t *testing.T) {
	base, cand := load(t, run(t)), load(t, run(t, "sweep=1,2,4"))
	if got, want := names(base.Points), []string{"chat / concurrency1", "chat / concurrency2", "solo / concurrency1"}; !slices.Equal(got, want) {
		t.Fatalf("baseline points %q, want %q", got, want)
	}
	m := Match(base, cand)
	want := []string{"chat / concurrency1=chat / concurrency1", "chat / concurrency2=chat / concurrency2", "solo / concurrency1=solo / concurrency1"}
	if got := pairNames(m); !slices.Equal(got, want) {
		t.Errorf("pairs %q, want %q", got, want)
	}
	if got := names(m.OnlyCandidate); !slices.Equal(got, []string{"chat / concurrency4"}) || len(m.OnlyBaseline) != 0 {
		t.Errorf("unmatched: baseline %q, candidate %q", names(m.OnlyBaseline), got)
	}
	if diffs, err := Check(m, CheckOptions{}); err != nil || len(diffs) != 0 {
		t.Errorf("Check = %v, %v; want no difference", diffs, err)
	}
	d := base.Points[0].Desc
	if !slices.Equal(d.Models, []string{"m"}) || d.API != "chat" || !d.Stream || d.MeanISL != 20 || d.MeanOSL != 8 || d.Load != "concurrency 1" || d.Dataset == "" {
		t.Errorf("description %+v", d)
	}
}

// Repeats of a point are one point whose repeats keep their order and
// their own records, each in send order; the set starts at its earliest
// request. Its tokens are 1 ms apart: with no gap, a request's tokens can
// arrive in one read, every ITL is 0, and ITL is then not reported at all
// (GenAI-Perf's rule), so itl.p99 would have no value to sample.
func TestRepeatsGroupedRecordsInSendOrder(t *testing.T) {
	s := load(t, run(t, "repeats=3", "itl=1ms"))
	if len(s.Points) != 3 {
		t.Fatalf("%d points, want 3", len(s.Points))
	}
	p := s.Points[0]
	if len(p.Repeats) != 3 {
		t.Fatalf("%s: %d repeats, want 3", p.Name(), len(p.Repeats))
	}
	for k, r := range p.Repeats {
		if r.Index != k+1 || len(r.Records) != 6 || r.Summary.Completed != 6 {
			t.Errorf("repeat %d: index %d, %d records, %d completed", k+1, r.Index, len(r.Records), r.Summary.Completed)
		}
		if !slices.IsSortedFunc(r.Records, func(a, b metrics.Record) int { return int(a.Sent - b.Sent) }) {
			t.Errorf("repeat %d: records not in send order", k+1)
		}
		if r.Records[0].Sent < s.Start.UnixNano() {
			t.Errorf("repeat %d sent at %d, before the set's start %v", k+1, r.Records[0].Sent, s.Start)
		}
	}
	if runs := p.Runs(); len(runs) != 3 || runs[1].Summary != &p.Repeats[1].Summary || len(runs[1].Records) != 6 {
		t.Errorf("Runs() = %d runs, not the repeats", len(runs))
	}
	if _, err := metrics.SampleOf("itl.p99", p.Runs()); err != nil {
		t.Errorf("SampleOf(itl.p99): %v", err)
	}
	if s.Start.IsZero() || s.Start.Year() < 2020 {
		t.Errorf("start %v", s.Start)
	}
}

// Every property that makes two runs incomparable is named with both
// sides' values, and the error is bad input (exit 2); Force makes them
// warnings.
func TestCheckNamesEveryDifference(t *testing.T) {
	base := load(t, run(t, "count=usage"))
	cases := []struct {
		vars string
		want []string // What of every difference expected
	}{
		{"model=other", []string{"model"}},
		{"api=completions", []string{"endpoint type"}},
		{"stream=false", []string{"streaming"}},
		{"count=chunks", []string{"token counting"}},
		{"isl=40", []string{"dataset", "mean ISL"}},
	}
	for _, c := range cases {
		t.Run(c.vars, func(t *testing.T) {
			cand := load(t, run(t, "count=usage", c.vars))
			m := Match(base, cand)
			diffs, err := Check(m, CheckOptions{})
			var inc *IncomparableError
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
				if n := len(slices.DeleteFunc(slices.Clone(diffs), func(d Difference) bool { return d.What != w || d.Point != "" })); n != 1 {
					t.Errorf("%d %q differences for the whole set in %v, want 1 (every point has it)", n, w, diffs)
				}
			}
			forced, err := Check(m, CheckOptions{Force: true})
			if err != nil || len(forced) != len(diffs) || slices.ContainsFunc(forced, func(d Difference) bool { return !d.Warning }) {
				t.Errorf("forced: %v, %v; want the same differences as warnings", forced, err)
			}
		})
	}
}

// An analyze folder's points match another's by experiment and load; a
// point folder and its records file are one-point sets of the same point.
func TestAnalyzeFolderPointFolderAndRecordsFile(t *testing.T) {
	analyze := func() string {
		dir := t.TempDir()
		llmbench(t, dir, "analyze", "-m", "m", "-u", fastSim, "--request-count", "4", "--sweep-list", "1,2")
		return filepath.Join(dir, "artifacts")
	}
	a, b := analyze(), analyze()
	m := Match(load(t, a), load(t, b))
	if got, want := pairNames(m), []string{"m / concurrency1=m / concurrency1", "m / concurrency2=m / concurrency2"}; !slices.Equal(got, want) {
		t.Errorf("analyze pairs %q, want %q", got, want)
	}
	point := filepath.Join(a, "m-openai-chat-concurrency2")
	m = Match(load(t, filepath.Join(point, "records.parquet")), load(t, b))
	if got := pairNames(m); !slices.Equal(got, []string{"m / concurrency2=m / concurrency2"}) || len(m.OnlyCandidate) != 1 {
		t.Errorf("records file vs analyze: pairs %q, unmatched %q", got, names(m.OnlyCandidate))
	}
	if _, err := Check(m, CheckOptions{}); err != nil {
		t.Errorf("records file vs analyze: %v", err)
	}
}

// Two profile points match when each set is one point, whatever their
// folders are called; a different load is then named.
func TestSingleProfilePointsMatch(t *testing.T) {
	one, two := load(t, profile(t, "--concurrency", "1")), load(t, profile(t, "--concurrency", "2"))
	m := Match(one, two)
	if len(m.Pairs) != 1 || len(m.OnlyBaseline)+len(m.OnlyCandidate) != 0 {
		t.Fatalf("pairs %q, unmatched %q %q", pairNames(m), names(m.OnlyBaseline), names(m.OnlyCandidate))
	}
	_, err := Check(m, CheckOptions{})
	if err == nil || !strings.Contains(err.Error(), "load: baseline concurrency 1, candidate concurrency 2") {
		t.Errorf("Check = %v, want the load named", err)
	}
}

// Sets that share no point are incomparable by their load points.
func TestNoSharedPointIsLoadPoints(t *testing.T) {
	m := Match(load(t, run(t)), &Set{Points: []*Point{{Experiment: "other", Params: map[string]float64{"concurrency": 8}}}})
	_, err := Check(m, CheckOptions{})
	if err == nil || !strings.Contains(err.Error(), "load points: baseline chat / concurrency1, chat / concurrency2, solo / concurrency1, candidate other / concurrency8") {
		t.Errorf("Check = %v", err)
	}
}

// A GenAI-Perf export is imported as `report` imports it: one point of
// no experiment, its model from the payloads, its load from the export.
func TestGenAIPerfExport(t *testing.T) {
	s := load(t, "../../runtime/paexport/testdata/example_profile_export.json")
	if len(s.Points) != 1 {
		t.Fatalf("%d points", len(s.Points))
	}
	p := s.Points[0]
	d := p.Desc
	if p.Name() != "concurrency2" || !d.Imported || !slices.Equal(d.Models, []string{"my/model"}) || d.API != "chat" || !d.Stream ||
		len(p.Repeats) != 1 || len(p.Repeats[0].Records) != 2 || s.Start.UnixNano() != 1000000 {
		t.Errorf("imported %s: %+v, start %d", p.Name(), d, s.Start.UnixNano())
	}
}

// An llmbench profile's own profile_export.json, imported, compares with
// its records without a difference; a different token counting is a
// warning, not an error, when one side is imported.
func TestExportAgainstRecords(t *testing.T) {
	dir := profile(t, "--concurrency", "2", "--streaming")
	point := filepath.Join(dir, "m-openai-chat-concurrency2")
	records := load(t, point)
	for _, count := range []string{"usage", "chunks"} {
		s, err := Load(filepath.Join(point, "profile_export.json"), Options{Import: ImportOptions{TokenCount: count}})
		if err != nil {
			t.Fatal(err)
		}
		m := Match(s, records)
		diffs, err := Check(m, CheckOptions{})
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

// Two files claiming the same run of the same point (a point folder
// copied inside its run) are refused naming both, not silently pooled.
func TestSameRepeatTwiceRefused(t *testing.T) {
	out := run(t)
	src := filepath.Join(out, "solo", "concurrency1", "records.parquet")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(out, "solo", "copy", "records.parquet")
	if err := os.MkdirAll(filepath.Dir(copied), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(out, Options{})
	if err == nil || failure.ClassOf(err) != failure.Input || !strings.Contains(err.Error(), src) || !strings.Contains(err.Error(), copied) {
		t.Errorf("Load = %v, want an Input error naming both files", err)
	}
}

// A path holding nothing to compare is bad input naming it.
func TestNothingToLoad(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir, Options{})
	if err == nil || failure.ClassOf(err) != failure.Input || !strings.Contains(err.Error(), dir) {
		t.Errorf("Load(empty) = %v", err)
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

func paths(sets []*Set) []string {
	var out []string
	for _, s := range sets {
		out = append(out, s.Path)
	}
	return out
}

// A folder of run folders is a history of them, in name order, folders
// holding no result (logs/) passed over; a run folder, a profile
// artifact folder and a records file stay one set each.
func TestLoadHistoryExpandsAFolderOfRuns(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "history")
	tue := move(t, run(t), hist, "tue")
	mon := move(t, run(t), hist, "mon")
	if err := os.MkdirAll(filepath.Join(hist, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hist, "logs", "ci.txt"), []byte("log"), 0o644); err != nil {
		t.Fatal(err)
	}
	sets, err := LoadHistory(hist, Options{})
	if err != nil {
		t.Fatalf("LoadHistory(history): %v", err)
	}
	if got := paths(sets); !slices.Equal(got, []string{mon, tue}) {
		t.Fatalf("history of %q, want mon and tue", got)
	}
	for _, s := range sets {
		if len(s.Points) != 3 || s.Start.IsZero() {
			t.Errorf("%s: %d points, start %v", s.Path, len(s.Points), s.Start)
		}
	}
	prof := profile(t, "--concurrency", "2")
	for _, one := range []string{mon, prof, filepath.Join(mon, "solo", "concurrency1", "records.parquet")} {
		if sets, err := LoadHistory(one, Options{}); err != nil || len(sets) != 1 || sets[0].Path != one {
			t.Errorf("LoadHistory(%s) = %q, %v; want the one set", one, paths(sets), err)
		}
	}
}

// A folder of GenAI-Perf export folders is a history too: Load finds no
// records file in it and no export at its top.
func TestLoadHistoryOfExports(t *testing.T) {
	b, err := os.ReadFile("../../runtime/paexport/testdata/example_profile_export.json")
	if err != nil {
		t.Fatal(err)
	}
	hist := t.TempDir()
	for _, run := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(hist, run), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(hist, run, "profile_export.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sets, err := LoadHistory(hist, Options{})
	if err != nil || len(sets) != 2 || !sets[0].Points[0].Desc.Imported {
		t.Fatalf("LoadHistory(exports) = %q, %v", paths(sets), err)
	}
}

// A run of a history that does not load is an error naming its files,
// not a run silently left out; a folder with nothing to compare names
// itself and what it should hold.
func TestLoadHistoryErrors(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "history")
	move(t, run(t), hist, "mon")
	tue := move(t, run(t), hist, "tue")
	src := filepath.Join(tue, "solo", "concurrency1", "records.parquet")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(tue, "solo", "copy", "records.parquet")
	if err := os.MkdirAll(filepath.Dir(copied), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadHistory(hist, Options{}); err == nil || failure.ClassOf(err) != failure.Input ||
		!strings.Contains(err.Error(), src) || !strings.Contains(err.Error(), copied) {
		t.Errorf("LoadHistory with a broken run = %v, want an Input error naming both files", err)
	}
	empty := t.TempDir()
	if err := os.MkdirAll(filepath.Join(empty, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = LoadHistory(empty, Options{})
	if err == nil || failure.ClassOf(err) != failure.Input || !strings.Contains(err.Error(), empty) || !strings.Contains(err.Error(), "a folder of those (a history)") {
		t.Errorf("LoadHistory(nothing) = %v", err)
	}
}
