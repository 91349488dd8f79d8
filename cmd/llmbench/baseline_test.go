package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/storedrun/storedruntest"
	"github.com/llmbench/llmbench/runtime/engine"
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

// gateVerdict is one verdict of gates.json, as a test reads it back.
type gateVerdict struct {
	Gate       string   `json:"gate"`
	Passed     bool     `json:"passed"`
	Measured   float64  `json:"measured"`
	Baseline   *float64 `json:"baseline"`
	Comparison *struct {
		Change   float64    `json:"change"`
		Interval [2]float64 `json:"interval"`
		Verdict  string     `json:"verdict"`
	} `json:"comparison"`
}

// readVerdicts reads the verdicts of the run folder out's gates.json.
func readVerdicts(t *testing.T, out string) []gateVerdict {
	t.Helper()
	var f struct{ Verdicts []gateVerdict }
	b, err := os.ReadFile(filepath.Join(out, "gates.json"))
	if err != nil || json.Unmarshal(b, &f) != nil || len(f.Verdicts) == 0 {
		t.Fatalf("%s/gates.json (%v): %s", out, err, b)
	}
	return f.Verdicts
}

// pointP50 reads the p50 of metric of a run's one point from its
// summary.json: what the run measured.
func pointP50(t *testing.T, out, metric string) float64 {
	t.Helper()
	var f struct {
		Experiments []struct {
			Points []struct{ Metrics map[string]json.RawMessage }
		}
	}
	var m struct{ P50 float64 }
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil || json.Unmarshal(b, &f) != nil || len(f.Experiments) != 1 || len(f.Experiments[0].Points) != 1 ||
		json.Unmarshal(f.Experiments[0].Points[0].Metrics[metric], &m) != nil {
		t.Fatalf("%s/summary.json (%v): no %s", out, err, metric)
	}
	return m.P50
}

// A baseline gate from the CLI, end to end against the simulator: a
// branch's first run skips it; the next run is compared with what the
// first measured, and its gates.json, compare.json, report.html and
// Markdown summary carry the comparison. What the simulator measured
// decides nothing here: the test reads both sides' ITL back from their
// summary.json and checks that the gate compared exactly those, judged
// their interval by the comparison's rule, and that the exit code and the
// rebuilt report follow that verdict. Which verdict a given difference
// gets is TestBaselineGateDecisions' job, on exact fixtures.
func TestRunBaselineGates(t *testing.T) {
	t.Parallel()
	dir, _ := writeScenario(t, baselineScenario)
	r := runCLI(t, dir, "run", "s.star", "--out", "base", "--no-plots", "--allow-missing-baseline")
	if r.code != 0 || !strings.Contains(r.stdout, "- itl.p50 <= baseline * 1.10 [chat/concurrency4]: skipped") ||
		!strings.Contains(r.stdout, "1 of 2 gates passed, 1 skipped") {
		t.Fatalf("first run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, dir, "run", "s.star", "-D", "seed=2", "--out", "same", "--no-plots", "--baseline", "base", "--summary-md", "same.md")
	if r.code > 1 || !strings.Contains(r.stdout, "vs baseline") || !strings.Contains(r.stdout, "== comparison with the baseline ==") ||
		!strings.Contains(r.stdout, "error_rate = 0.00%, limit < 1%; baseline 0.00%") {
		t.Fatalf("second run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	v := readVerdicts(t, filepath.Join(dir, "same"))
	itl, base, own := v[0], pointP50(t, filepath.Join(dir, "base"), "itl"), pointP50(t, filepath.Join(dir, "same"), "itl")
	same := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*b } // the same number, through ns and ms
	if itl.Comparison == nil || itl.Baseline == nil || !same(*itl.Baseline, base) || !same(itl.Measured, own) || v[1].Baseline == nil {
		t.Fatalf("the gate did not compare the runs' own ITL (baseline %v, this run %v): %+v", base, own, itl)
	}
	c := itl.Comparison
	// The judge's rule for a family of one: a regression is a change past
	// the tolerance whose one-sided lower bound lies above no change.
	judged := metrics.VerdictNoChange
	if c.Change > 0.10 && c.Interval[0] > 0 {
		judged = metrics.VerdictRegression
	}
	if math.Abs(c.Change-(own/base-1)) > 1e-8 || (c.Verdict == string(metrics.VerdictRegression)) != (judged == metrics.VerdictRegression) || itl.Passed != (judged != metrics.VerdictRegression) ||
		(r.code == 1) == itl.Passed {
		t.Errorf("%.4f ms against %.4f ms judged %+v, exit %d; want change %+.4f, verdict %s", own, base, *c, r.code, own/base-1, judged)
	}
	t.Logf("itl.p50 %.4f ms against %.4f ms: %s", own, base, c.Verdict)
	for _, f := range []string{"compare.json", "report.html"} {
		if b, err := os.ReadFile(filepath.Join(dir, "same", f)); err != nil || !strings.Contains(string(b), "itl.p50") {
			t.Errorf("%s (%v) lacks the comparison", f, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "same.md")); !strings.Contains(string(b), " llmbench compare") {
		t.Errorf("summary lacks the comparison:\n%s", b)
	}
	if r := runCLI(t, dir, "report", "same"); r.code != 0 {
		t.Errorf("report: exit %d\n%s", r.code, r.stderr)
	}
	if rebuilt := readVerdicts(t, filepath.Join(dir, "same"))[0]; rebuilt.Comparison == nil || rebuilt.Comparison.Verdict != c.Verdict {
		t.Errorf("the rebuilt report judged the gate again: %+v, was %s", rebuilt, c.Verdict)
	}
}

// decisionPlan is baselineScenario's experiment as storedruntest writes
// it, comparing with the run in base.
func decisionPlan(t *testing.T, base string) plan.Experiment {
	e := storedruntest.Chat("chat", 120)
	e.Load.Concurrency, e.Baseline = 4, base
	e.Gates = storedruntest.Gates(t, "itl.p50 <= baseline * 1.10", "error_rate < 1%")
	return e
}

// The decisions of a baseline gate, exact: runs written by storedruntest
// whose every token gap is planned (8 ms in the baseline), judged by
// merge, which attaches baselines and judges gates as run does. The
// same server passes with no significant change; 25% slower per token
// fails naming ITL; 3% slower is a real change within the gate's 10%; the rebuilt
// report keeps the regression as judged.
func TestBaselineGateDecisions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := filepath.Join(dir, "base")
	shape := storedruntest.Shape{TTFT: 20 * time.Millisecond, ITL: 8 * time.Millisecond, OSL: 16}
	storedruntest.Run(t, base, "s.star", decisionPlan(t, ""), storedruntest.Same(storedruntest.Make(120, shape)))
	for _, c := range []struct {
		name string
		itl  time.Duration
		code int
		want string
	}{
		{"same", 8 * time.Millisecond, 0, "✓ itl.p50 <= baseline * 1.10 [chat/concurrency4]: itl.p50 = 8.00 ms vs baseline 8.00 ms: +0.0%"},
		{"slow", 10 * time.Millisecond, 1, "✗ itl.p50 <= baseline * 1.10 [chat/concurrency4]: itl.p50 = 10.00 ms vs baseline 8.00 ms: +25.0%"},
		{"little", 8240 * time.Microsecond, 0, "✓ itl.p50 <= baseline * 1.10 [chat/concurrency4]: itl.p50 = 8.24 ms vs baseline 8.00 ms: +3.0%"},
	} {
		var shards []string
		for i := range 2 {
			s := shape
			s.ITL = c.itl
			shards = append(shards, storedruntest.Shard(t, filepath.Join(dir, c.name+"-shards", fmt.Sprint(i)), "s.star", decisionPlan(t, base),
				engine.Shard{Index: i, Count: 2}, storedruntest.Same(storedruntest.Make(60, s))))
		}
		out := filepath.Join(dir, c.name)
		r := runCLI(t, dir, append(append([]string{"merge"}, shards...), "--out", out)...)
		verdict := "no significant change (limit <= baseline * 1.1)"
		switch {
		case c.code == 1:
			verdict = "regression (limit <= baseline * 1.1)"
		case c.name == "little": // real, but within the tolerance
			verdict = "within tolerance (limit <= baseline * 1.1)"
		}
		if r.code != c.code || !strings.Contains(r.stdout, c.want) || !strings.Contains(r.stdout, verdict) {
			t.Errorf("%s: exit %d, want %d with %q and %q\n%s%s", c.name, r.code, c.code, c.want, verdict, r.stdout, r.stderr)
		}
	}
	if r := runCLI(t, dir, "report", "slow"); r.code != 0 {
		t.Errorf("report: exit %d\n%s", r.code, r.stderr)
	}
	if v := readVerdicts(t, filepath.Join(dir, "slow"))[0]; v.Passed || v.Comparison == nil || v.Comparison.Verdict != "regression" {
		t.Errorf("rebuilt gates.json: %+v", v)
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
