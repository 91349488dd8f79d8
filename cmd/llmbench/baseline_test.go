package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/reports/storedrun/storedruntest"
	"github.com/llmbench/llmbench/runtime/plan"
)

// baselineScenario measures one point (concurrency 4, 120 streamed
// requests of 16 tokens) of the simulator at -D itl and -D seed, with a
// baseline gate on ITL and an absolute one.
const baselineScenario = `
def main(ctx):
    url = "sim://?itl_per_seq=0ms&jitter=0.05&itl=%s&seed=%s" % (ctx.vars.get("itl", "8ms"), ctx.vars.get("seed", "1"))
    return experiment(
        name = "chat",
        endpoint = endpoint(url = url, model = "m", api = "chat", stream = True),
        dataset = synthetic(input_tokens = fixed(64), output_tokens = fixed(16)),
        traffic = concurrency(4),
        requests = 120,
        gates = ["itl.p50 <= baseline * 1.10", "error_rate < 1%"],
    )
`

func writeFileIn(t *testing.T, dir, name, src string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The cases, from the CLI: a branch's first run skips its
// baseline gate; the same server again passes it ("no significant
// change") and the run's folder holds its comparison; a server 25% slower
// per token (itl=10ms against 8ms) fails it, naming ITL. It was 9.5ms,
// planned ~15%, until a fresh CI run on a loaded machine measured +10.2%
// and called it inconclusive: the overhead added to every token gap grows
// with load and shrinks the difference. 3% slower is within the gate's 10%.
func TestRunBaselineGates(t *testing.T) {
	dir, _ := writeScenario(t, baselineScenario)
	r := runCLI(t, dir, "run", "s.star", "--out", "base", "--no-plots", "--allow-missing-baseline")
	if r.code != 0 || !strings.Contains(r.stdout, "- itl.p50 <= baseline * 1.10 [chat/concurrency4]: skipped") ||
		!strings.Contains(r.stdout, "1 of 2 gates passed, 1 skipped") {
		t.Fatalf("first run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, dir, "run", "s.star", "-D", "seed=2", "--out", "same", "--no-plots", "--baseline", "base", "--summary-md", "same.md")
	if r.code != 0 || !strings.Contains(r.stdout, "vs baseline") || !strings.Contains(r.stdout, "== comparison with the baseline ==") ||
		!strings.Contains(r.stdout, "error_rate = 0.00%, limit < 1%; baseline 0.00%") {
		t.Errorf("same server: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var gates struct {
		Verdicts []struct {
			Gate       string   `json:"gate"`
			Baseline   *float64 `json:"baseline"`
			Comparison *struct {
				Verdict string `json:"verdict"`
			} `json:"comparison"`
		} `json:"verdicts"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "same", "gates.json")); err != nil || json.Unmarshal(b, &gates) != nil ||
		gates.Verdicts[0].Comparison == nil || gates.Verdicts[0].Baseline == nil || gates.Verdicts[1].Baseline == nil {
		t.Errorf("gates.json (%v): %s", err, b)
	}
	for _, f := range []string{"compare.json", "report.html"} {
		if b, err := os.ReadFile(filepath.Join(dir, "same", f)); err != nil || !strings.Contains(string(b), "itl.p50") {
			t.Errorf("%s (%v) lacks the comparison", f, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "same.md")); !strings.Contains(string(b), "### ✅ llmbench compare") {
		t.Errorf("summary lacks the comparison:\n%s", b)
	}
	r = runCLI(t, dir, "run", "s.star", "-D", "seed=3", "-D", "itl=10ms", "--out", "slow", "--no-plots", "--baseline", "base")
	if r.code != 1 || !strings.Contains(r.stdout, "✗ itl.p50 <= baseline * 1.10 [chat/concurrency4]: itl.p50 = ") ||
		!strings.Contains(r.stdout, "regression (limit <= baseline * 1.1)") {
		t.Errorf("25%% slower ITL: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, dir, "run", "s.star", "-D", "seed=4", "-D", "itl=8.24ms", "--out", "little", "--no-plots", "--baseline", "base")
	if r.code != 0 {
		t.Errorf("3%% slower ITL: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The rebuilt report keeps the baseline gate's verdict as judged.
	if r := runCLI(t, dir, "report", "slow"); r.code != 0 {
		t.Errorf("report: exit %d\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "slow", "gates.json")); !strings.Contains(string(b), `"verdict": "regression"`) {
		t.Errorf("rebuilt gates.json:\n%s", b)
	}
}

// A baseline gate with nothing to compare with, and a baseline that does
// not fit, are exit 2 from run and check alike, naming what is wrong,
// before anything is sent. The baseline is the run of the scenario's
// one point as storedruntest writes it: only its plan matters here.
func TestBaselineRefusals(t *testing.T) {
	t.Parallel()
	small := strings.Replace(baselineScenario, "requests = 120,", "requests = 16,", 1) // judged: the refusals, not the measurement
	dir, _ := writeScenario(t, small)
	base := storedruntest.Chat("chat", 16)
	base.Load.Concurrency, base.Dataset = 4, plan.Described("")
	recs := storedruntest.Make(16, storedruntest.Shape{TTFT: 20 * time.Millisecond, ITL: 8 * time.Millisecond, ISL: 64, OSL: 16})
	storedruntest.Run(t, filepath.Join(dir, "base"), "s.star", base, storedruntest.Same(recs))
	other := strings.Replace(small, `model = "m"`, `model = "other"`, 1)
	writeFileIn(t, dir, "other.star", other)
	writeFileIn(t, dir, "named.star", strings.Replace(small, `name = "chat"`, `name = "rag"`, 1))
	writeFileIn(t, dir, "inside.star", strings.Replace(small, `requests = 16,`, `requests = 16, baseline = "base",`, 1))
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "s.star", "--out", "x"}, 2, `gate "itl.p50 <= baseline * 1.10" compares with a baseline, but none is given`},
		{[]string{"check", "s.star"}, 2, "none is given"},
		{[]string{"check", "s.star", "--baseline", "nowhere"}, 2, "nowhere"},
		{[]string{"check", "other.star", "--baseline", "base"}, 2, "model: baseline m, this run other"},
		{[]string{"check", "named.star", "--baseline", "base"}, 2, `no point of experiment "rag"`},
		{[]string{"check", "s.star", "--baseline", "base"}, 0, ""},
		{[]string{"check", "inside.star"}, 0, ""},
		{[]string{"check", "s.star", "--baseline", "nowhere", "--allow-missing-baseline"}, 0, "its baseline gates are skipped"},
	} {
		r := runCLI(t, dir, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s", c.args, r.code, c.code, c.want, r.stderr)
		}
	}
}
