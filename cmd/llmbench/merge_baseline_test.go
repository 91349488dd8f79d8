package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mergeBaselineScenario has a baseline gate, judged by merge alone: the
// shards record the baseline their scenario names and compare with none.
const mergeBaselineScenario = `
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = env("SIM_URL"), model = "m"),
        dataset = synthetic(input_tokens = 10, output_tokens = 4), traffic = concurrency(4), requests = 60,
        baseline = env("BASE", ""), gates = ["ttft.p50 <= baseline * 1.50", "error_rate < 1%"])
`

// TestMergeJudgesBaselineGates: shards of a scenario with a baseline gate
// exit 0 (they judge nothing); merge compares the union with the baseline
// the shards' plans name — a server five times slower than the baseline's
// fails the gate (exit 1), the baseline's own server passes it — and
// writes compare.json as run does; --baseline overrides the plans' path.
func TestMergeJudgesBaselineGates(t *testing.T) {
	fast := startSimCommand(t, "--itl", "1ms", "--ttft", "4ms", "--prefill-per-token", "0s")
	slow := startSimCommand(t, "--itl", "1ms", "--ttft", "40ms", "--prefill-per-token", "0s")
	dir, file := writeScenario(t, mergeBaselineScenario)
	base := filepath.Join(dir, "base")
	if r := runCLIEnv(t, dir, []string{"SIM_URL=" + fast}, "run", file, "--out", base, "--no-plots", "--allow-missing-baseline"); r.code != 0 {
		t.Fatalf("baseline run: exit %d\n%s", r.code, r.stderr)
	}
	for _, tc := range []struct {
		name, sim string
		code      int
	}{{"same server", fast, 0}, {"slower server", slow, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			env := []string{"SIM_URL=" + tc.sim, "BASE=" + base}
			shards := runShards(t, dir, file, env, 2)
			out := filepath.Join(dir, "merged-"+strings.ReplaceAll(tc.name, " ", "-"))
			r := runCLIEnv(t, dir, nil, append(append([]string{"merge"}, shards...), "--out", out)...)
			if r.code != tc.code || !strings.Contains(r.stdout, "ttft.p50 <= baseline * 1.50 [e/concurrency4]: ttft.p50 = ") {
				t.Fatalf("merge: exit %d, want %d\n%s%s", r.code, tc.code, r.stdout, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(out, "compare.json")); err != nil {
				t.Errorf("merge with a baseline wrote no compare.json: %v", err)
			}
		})
	}
	t.Run("--baseline overrides", func(t *testing.T) {
		env := []string{"SIM_URL=" + slow, "BASE=" + base}
		shards := runShards(t, dir, file, env, 2)
		slowBase := filepath.Join(dir, "slow-base")
		if r := runCLIEnv(t, dir, nil, append(append([]string{"merge"}, shards...), "--out", slowBase)...); r.code != 1 {
			t.Fatalf("merge against the fast baseline: exit %d, want 1\n%s", r.code, r.stderr)
		}
		r := runCLIEnv(t, dir, nil, append(append([]string{"merge"}, shards...), "--out", filepath.Join(dir, "m"), "--baseline", slowBase)...)
		if r.code != 0 || !strings.Contains(r.stdout, "Baseline:  "+slowBase) {
			t.Errorf("merge --baseline of the slow run itself: exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
		}
	})
}

// A merge of shards whose baseline gate has no baseline is an input
// error naming the gate, or with --allow-missing-baseline a skipped gate.
func TestMergeWithoutABaseline(t *testing.T) {
	t.Parallel()
	sim := startSimCommand(t, "--itl", "1ms", "--ttft", "2ms")
	dir, file := writeScenario(t, mergeBaselineScenario)
	shards := runShards(t, dir, file, []string{"SIM_URL=" + sim}, 2)
	r := runCLIEnv(t, dir, nil, append(append([]string{"merge"}, shards...), "--out", filepath.Join(dir, "m"))...)
	if r.code != 2 || !strings.Contains(r.stderr, `gate "ttft.p50 <= baseline * 1.50" compares with a baseline, but none is given`) {
		t.Errorf("merge without a baseline: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runCLIEnv(t, dir, nil, append(append([]string{"merge"}, shards...), "--out", filepath.Join(dir, "m2"), "--allow-missing-baseline")...)
	if r.code != 0 || !strings.Contains(r.stdout, "skipped: no baseline to compare with") {
		t.Errorf("merge --allow-missing-baseline: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
