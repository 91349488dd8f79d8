package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/runtime/engine"
	runplan "github.com/llmbench/llmbench/runtime/plan"

	"github.com/llmbench/llmbench/reports/storedrun/storedruntest"
)

// mergePlan is an experiment with a baseline gate, judged by merge
// alone: the shards record the baseline their plan names (base) and
// compare with none.
func mergePlan(t testing.TB, base string) runplan.Experiment {
	plan := storedruntest.Chat("e", 60)
	plan.Load.Concurrency, plan.Baseline = 4, base
	plan.Gates = storedruntest.Gates(t, "ttft.p50 <= baseline * 1.50", "error_rate < 1%")
	return plan
}

// writeShards writes the two shards of a run of mergePlan(base) whose
// server answers first after ttft, as storedruntest writes them (30
// requests each), and returns their folders.
func writeShards(t *testing.T, dir, base string, ttft time.Duration) []string {
	t.Helper()
	folder, err := os.MkdirTemp(dir, "shards")
	if err != nil {
		t.Fatal(err)
	}
	var outs []string
	for i := range 2 {
		recs := storedruntest.Make(30, storedruntest.Shape{TTFT: ttft, ITL: time.Millisecond})
		outs = append(outs, storedruntest.Shard(t, filepath.Join(folder, fmt.Sprint(i)), "s.star", mergePlan(t, base),
			engine.Shard{Index: i, Count: 2}, storedruntest.Same(recs)))
	}
	return outs
}

// TestMergeJudgesBaselineGates: merge compares the union of shards with
// the baseline the shards' plans name — a server ten times slower than
// the baseline's fails the gate (exit 1), the baseline's own server
// passes it — and writes compare.json as run does; --baseline overrides
// the plans' path. Every run is written by storedruntest: no server.
func TestMergeJudgesBaselineGates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := filepath.Join(dir, "base")
	storedruntest.Run(t, base, "s.star", mergePlan(t, ""), storedruntest.Same(storedruntest.Make(60, storedruntest.Shape{TTFT: 4 * time.Millisecond, ITL: time.Millisecond})))
	for _, tc := range []struct {
		name string
		ttft time.Duration
		code int
	}{{"same server", 4 * time.Millisecond, 0}, {"slower server", 40 * time.Millisecond, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			shards := writeShards(t, dir, base, tc.ttft)
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
		shards := writeShards(t, dir, base, 40*time.Millisecond)
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
	dir := t.TempDir()
	shards := writeShards(t, dir, "", 2*time.Millisecond)
	r := runCLIEnv(t, dir, nil, append(append([]string{"merge"}, shards...), "--out", filepath.Join(dir, "m"))...)
	if r.code != 2 || !strings.Contains(r.stderr, `gate "ttft.p50 <= baseline * 1.50" compares with a baseline, but none is given`) {
		t.Errorf("merge without a baseline: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runCLIEnv(t, dir, nil, append(append([]string{"merge"}, shards...), "--out", filepath.Join(dir, "m2"), "--allow-missing-baseline")...)
	if r.code != 0 || !strings.Contains(r.stdout, "skipped: no baseline to compare with") {
		t.Errorf("merge --allow-missing-baseline: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
