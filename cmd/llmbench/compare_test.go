package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/storedrun/storedruntest"
	"github.com/llmbench/llmbench/runtime"
)

// profileInto writes into dir/name what `profile` leaves of 120 streamed
// requests of osl tokens at concurrency 4 from a server whose tokens come
// itl apart, the first sent at second n of 2026: written by
// storedruntest, no server started, so each comparison sees exactly the
// planned difference and nothing of the machine's load.
func profileInto(t *testing.T, dir, name string, n int, itl time.Duration, osl int) string {
	t.Helper()
	plan := storedruntest.Chat("m", 120)
	plan.Load.Concurrency = 4
	shape := storedruntest.Shape{TTFT: 20 * time.Millisecond, ITL: itl, OSL: osl, Start: time.Date(2026, 1, 1, 0, 0, n, 0, time.UTC)}
	return storedruntest.Profile(t, filepath.Join(dir, name), plan, storedruntest.Same(storedruntest.Make(120, shape)))
}

// The same server twice is exit 0, no significant change; a server 25%
// slower per token (itl=10ms against 8ms) is exit 1 naming ITL; 3% slower
// within the default 10% tolerance is exit 0; compare.json and the
// Markdown say the same. Telling a change from noise is the comparison's
// own tests' job (metrics/compare_sim_test.go); these test the command.
func TestCompareSameAndSlowerServers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := profileInto(t, dir, "base", 1, 8*time.Millisecond, 16)
	same := profileInto(t, dir, "same", 2, 8*time.Millisecond, 16)
	slow := profileInto(t, dir, "slow", 3, 10*time.Millisecond, 16)
	little := profileInto(t, dir, "little", 4, 8240*time.Microsecond, 16)

	if r := runCLI(t, dir, "compare", base, same); r.code != 0 || !strings.Contains(r.stdout, "no regression beyond the tolerance") ||
		strings.Contains(r.stdout, "regression (") {
		t.Errorf("same server: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	js, md := filepath.Join(dir, "c.json"), filepath.Join(dir, "c.md")
	r := runCLI(t, dir, "compare", base, slow, "--json", js, "--summary-md", md)
	if r.code != 1 || !strings.Contains(r.stderr, "regressions: concurrency4 itl.p50 +") {
		t.Errorf("25%% slower ITL: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var f struct {
		Regressions int `json:"regressions"`
	}
	if b, err := os.ReadFile(js); err != nil || json.Unmarshal(b, &f) != nil || f.Regressions == 0 {
		t.Errorf("compare.json (%v): %s", err, b)
	}
	if b, _ := os.ReadFile(md); !strings.HasPrefix(string(b), "### ❌") {
		t.Errorf("summary: %s", b)
	}
	// An imported perf_analyzer export (GenAI-Perf's raw format) is a
	// baseline like any other.
	export := filepath.Join(base, "m-openai-chat-concurrency4", "profile_export.json")
	if r := runCLI(t, dir, "compare", export, same); r.code != 0 || !strings.Contains(r.stdout, "no regression beyond the tolerance") {
		t.Errorf("export as baseline: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A history: runs in the order they started (same, then slow, then
	// little, whatever the order given), a trend table, the newest judged.
	junit := filepath.Join(dir, "c.xml")
	r = runCLI(t, dir, "compare", base, little, slow, same, "--metrics", "itl.p50", "--junit", junit)
	if r.code != 0 || !strings.Contains(r.stdout, "History against") || !strings.Contains(r.stdout, "REGRESSION") ||
		strings.Index(r.stdout, "Candidate: "+same) > strings.Index(r.stdout, "Candidate: "+slow) {
		t.Errorf("history: exit %d (want 0: the newest, little, is within the tolerance)\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(junit); !strings.Contains(string(b), `failures="0"`) || !strings.Contains(string(b), `name="itl.p50`) {
		t.Errorf("junit of the newest run: %s", b)
	}
	if r := runCLI(t, dir, "compare", base, little, "--metrics", "itl.p50,itl.p99"); r.code != 0 {
		t.Errorf("3%% slower within 10%%: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Sets that measured different things are exit 2 naming the difference,
// unless --force; bad flags are exit 2 naming the flag.
func TestCompareRefusesIncomparableSets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := profileInto(t, dir, "base", 1, 8*time.Millisecond, 16)
	other := profileInto(t, dir, "other", 2, 8*time.Millisecond, 32)
	r := runCLI(t, dir, "compare", base, other)
	if r.code != 2 || !strings.Contains(r.stderr, "OSL") && !strings.Contains(r.stderr, "osl") {
		t.Errorf("other output length: exit %d\n%s", r.code, r.stderr)
	}
	if r := runCLI(t, dir, "compare", base, other, "--force"); r.code == 2 || !strings.Contains(r.stdout, "warning:") {
		t.Errorf("--force: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, bad := range [][]string{{"--max-regression", "abc"}, {"--max-regression", "nosuch.p99=5%"}, {"--metrics", "nosuch"}, {"--confidence", "1.5"}} {
		if r := runCLI(t, dir, append([]string{"compare", base, base}, bad...)...); r.code != 2 || !strings.Contains(r.stderr, bad[0]) {
			t.Errorf("%v: exit %d\n%s", bad, r.code, r.stderr)
		}
	}
	if r := runCLI(t, dir, "compare", base, filepath.Join(dir, "missing")); r.code != 2 {
		t.Errorf("missing candidate: exit %d\n%s", r.code, r.stderr)
	}
}

// A folder of runs is a history (alone or beside a plain run), drawn
// with --plot-dir as one trend plot per point and metric; the newest run
// decides the exit code. A baseline that is a folder of runs is judged on
// all of them, as run --baseline judges it; a folder holding none is exit
// 2 naming it.
func TestCompareHistoryFolderPlots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hist := filepath.Join(dir, "history")
	if err := os.MkdirAll(hist, 0o755); err != nil {
		t.Fatal(err)
	}
	base := profileInto(t, dir, "base", 1, 8*time.Millisecond, 16)
	profileInto(t, hist, "a-same", 2, 8*time.Millisecond, 16)
	profileInto(t, hist, "b-slow", 3, 12*time.Millisecond, 16)

	plotDir := filepath.Join(dir, "plots")
	r := runCLI(t, dir, "compare", base, hist, "--metrics", "itl.p50,ttft.p50", "--plot-dir", plotDir)
	if r.code != 1 || !strings.Contains(r.stdout, "History against") || !strings.Contains(r.stdout, "a-same") ||
		strings.Index(r.stdout, "Candidate: "+filepath.Join(hist, "a-same")) > strings.Index(r.stdout, "Candidate: "+filepath.Join(hist, "b-slow")) {
		t.Fatalf("history folder: exit %d (want 1: the newest, b-slow, regressed)\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, name := range []string{"trend-concurrency4-itl_p50.png", "trend-concurrency4-ttft_p50.png"} {
		path := filepath.Join(plotDir, name)
		if st, err := os.Stat(path); err != nil || st.Size() == 0 || !strings.Contains(r.stdout, "trend plot: "+path) {
			t.Errorf("%s: %v (stdout names it: %v)", name, err, strings.Contains(r.stdout, path))
		}
	}
	// A plain run beside the folder: three runs, the baseline's own run
	// first (it started first); one candidate still gets its plots.
	if r := runCLI(t, dir, "compare", base, hist, base, "--metrics", "itl.p50"); r.code != 1 || !strings.Contains(r.stdout, "(3 runs, oldest first)") {
		t.Errorf("a run and a folder: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	one := filepath.Join(dir, "one")
	if r := runCLI(t, dir, "compare", base, filepath.Join(hist, "a-same"), "--metrics", "itl.p50", "--plot-dir", one); r.code != 0 ||
		!strings.Contains(r.stdout, "trend plot: "+filepath.Join(one, "trend-concurrency4-itl_p50.png")) {
		t.Errorf("one candidate with --plot-dir: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, dir, "compare", hist, base); r.code > 1 || !strings.Contains(r.stderr, "baseline: 2 runs in") {
		t.Errorf("a history as the baseline: exit %d\n%s", r.code, r.stderr)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(filepath.Join(empty, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, dir, "compare", base, empty); r.code != 2 || !strings.Contains(r.stderr, empty) || !strings.Contains(r.stderr, "history") {
		t.Errorf("a folder of nothing: exit %d\n%s", r.code, r.stderr)
	}
}

// cost_per_mtok is judged from repeats like energy_per_token, from each
// run's own price: the same requests at 1.5× the hourly price are a 50%
// regression (three repeats a side: with two, Welch's interval is too
// wide to call it; written by storedruntest, so the throughput is the
// same on both sides and nothing of the machine's load shows); a run
// whose server exported nothing (no telemetry.parquet: here removed from
// a run of the simulator) still has its cost, exactly the scraped run's.
func TestCompareJudgesCostPerMtok(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, price := range map[string]float64{"base": 4, "dear": 6} {
		plan := storedruntest.Chat("e", 20)
		plan.Load.Concurrency, plan.Repeats, plan.CostPerHour = 2, 3, price
		storedruntest.Run(t, filepath.Join(dir, name), "s.star", plan, func(key runtime.PointKey) []metrics.Record {
			itl := time.Duration(2000+50*key.Repeat) * time.Microsecond // repeats that differ, as real ones do
			return storedruntest.Make(20, storedruntest.Shape{TTFT: 2 * time.Millisecond, ITL: itl})
		})
	}
	cost := func(args ...string) (metric struct{ Baseline, Candidate, Change float64 }, r cliResult) {
		js := filepath.Join(dir, "c.json")
		os.Remove(js) // a failed compare must not leave the last one's numbers to read
		r = runCLI(t, dir, append([]string{"compare", "--metrics", "cost_per_mtok", "--json", js}, args...)...)
		var f struct {
			Points []struct {
				Metrics []struct{ Baseline, Candidate, Change float64 }
			}
		}
		if b, err := os.ReadFile(js); err != nil || json.Unmarshal(b, &f) != nil || len(f.Points) != 1 || len(f.Points[0].Metrics) != 1 {
			t.Fatalf("compare %v: exit %d, compare.json %v\n%s%s", args, r.code, err, r.stdout, r.stderr)
		}
		return f.Points[0].Metrics[0], r
	}
	if m, r := cost("base", "dear"); r.code != 1 || !strings.Contains(r.stderr, "cost_per_mtok +") || math.Abs(m.Change-0.5) > 1e-9 {
		t.Errorf("1.5× the price: exit %d, change %+.1f%%\n%s%s", r.code, 100*m.Change, r.stdout, r.stderr)
	}
	writeFileIn(t, dir, "s.star", `
def main(ctx):
    return [experiment(name = "e", endpoint = sim(ttft = "2ms", itl = "2ms"),
                       dataset = synthetic(input_tokens = fixed(16), output_tokens = fixed(8)),
                       traffic = concurrency(2), requests = 20, repeats = 3, cost_per_hour = 4.0)]
`)
	if r := runCLI(t, dir, "run", "s.star", "--out", "scraped"); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	unscraped := filepath.Join(dir, "unscraped")
	if err := os.CopyFS(unscraped, os.DirFS(filepath.Join(dir, "scraped"))); err != nil {
		t.Fatal(err)
	}
	repeats, _ := filepath.Glob(filepath.Join(unscraped, "e", "concurrency2", "*", "telemetry.parquet"))
	removed := append(repeats, filepath.Join(unscraped, "e", "concurrency2", "telemetry.parquet"))
	for _, f := range removed {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	if len(removed) != 3 {
		t.Fatalf("removed %d telemetry files, want one per repeat (3)", len(removed))
	}
	if m, r := cost("scraped", "unscraped"); r.code != 0 || m.Baseline != m.Candidate || m.Baseline <= 0 {
		t.Errorf("without telemetry files: exit %d, %v vs %v\n%s%s", r.code, m.Baseline, m.Candidate, r.stdout, r.stderr)
	}
}
