package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/reports/storedrun/storedruntest"
	"github.com/llmbench/llmbench/runtime/plan"
)

// --baseline and experiment(baseline=) take a folder of runs of the
// scenario (a history, the last runs of main): check says how many runs
// its point is judged on and names a run it leaves out; an empty folder
// and a folder of no runs are exit 2 naming the folder. The runs are
// written by storedruntest: only their plans and requests matter here.
func TestBaselineHistoryFlag(t *testing.T) {
	t.Parallel()
	small := strings.Replace(baselineScenario, "requests = 120,", "requests = 16,", 1)
	dir, _ := writeScenario(t, small)
	writeFileIn(t, dir, "inside.star", strings.Replace(small, `requests = 16,`, `requests = 16, baseline = "history",`, 1))
	for i, model := range []string{"m", "other", "m", "m"} {
		base := storedruntest.Chat("chat", 16)
		base.Load.Concurrency, base.Dataset, base.Endpoint.Model = 4, plan.Described(""), model
		recs := storedruntest.Make(16, storedruntest.Shape{TTFT: 20 * time.Millisecond, ITL: 8 * time.Millisecond, ISL: 64, OSL: 16,
			Start: time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC)})
		storedruntest.Run(t, filepath.Join(dir, "history", "run"+string(rune('1'+i))), "s.star", base, storedruntest.Same(recs))
	}
	for _, d := range []string{"empty", "notruns/logs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFileIn(t, dir, "notruns/logs/run.log", "not a run")
	history := filepath.Join(dir, "history")
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"check", "s.star", "--baseline", "history"}, 0, []string{
			"llmbench: baseline of chat: 3 runs in " + history + " (3 stored runs, run1 to run4)",
			"llmbench: warning: baseline " + filepath.Join(history, "run2") + " measured something else: model: baseline other, this run m: left out"}},
		{[]string{"check", "inside.star"}, 0, []string{"baseline of chat: 3 runs in " + history}},
		{[]string{"check", "s.star", "--baseline", "empty"}, 2, []string{filepath.Join(dir, "empty") + ": no records.parquet"}},
		{[]string{"run", "s.star", "--baseline", "notruns", "--out", "x"}, 2, []string{filepath.Join(dir, "notruns") + ": no records.parquet"}},
	} {
		r := runCLI(t, dir, c.args...)
		for _, want := range c.want {
			if r.code != c.code || !strings.Contains(r.stderr, want) {
				t.Errorf("%v: exit %d, want %d with %q\n%s", c.args, r.code, c.code, want, r.stderr)
			}
		}
	}
}

// A baseline gate that could not catch a change of its tolerance is
// refused before anything is sent, at its position in the scenario,
// saying what it can detect and what would help; --allow-weak-gates runs
// it with a warning. Two baseline runs 50% apart leave the judge one
// degree of freedom: itl.p50's minimum detectable change is far above
// 10%.
func TestWeakGateRefusedAtItsPosition(t *testing.T) {
	t.Parallel()
	dir, _ := writeScenario(t, strings.Replace(baselineScenario, "requests = 120,", "requests = 16,", 1))
	for i, itl := range []time.Duration{8 * time.Millisecond, 12 * time.Millisecond} {
		base := storedruntest.Chat("chat", 16)
		base.Load.Concurrency, base.Dataset = 4, plan.Described("")
		recs := storedruntest.Make(16, storedruntest.Shape{TTFT: 20 * time.Millisecond, ITL: itl, ISL: 64, OSL: 16,
			Start: time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC)})
		storedruntest.Run(t, filepath.Join(dir, "history", fmt.Sprintf("run%d", i)), "s.star", base, storedruntest.Same(recs))
	}
	r := runCLI(t, dir, "check", "s.star", "--baseline", "history")
	want := filepath.Join(dir, "s.star") + `:10:18: experiment "chat": gate "itl.p50 <= baseline * 1.10" is too weak for its tolerance: itl.p50 with this baseline can only detect changes above`
	if r.code != 2 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "its 2 baseline runs vary too much") {
		t.Fatalf("check: exit %d, want 2 and %q\n%s", r.code, want, r.stderr)
	}
	r = runCLI(t, dir, "check", "s.star", "--baseline", "history", "--allow-weak-gates")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: experiment \"chat\": gate \"itl.p50 <= baseline * 1.10\" is too weak") {
		t.Errorf("--allow-weak-gates: exit %d\n%s", r.code, r.stderr)
	}
}
