package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/storedrun/storedruntest"
)

// shiftedHistory writes eight nightly runs of one profile point into
// dir/nightly: tokens 8 ms apart (±1%) in the first four nights, 10 ms
// (+25%) from the fifth on. The folders are named so that their name
// order is not their time order: the history must order them by when
// they ran. Returns the folder and the fifth night's run.
func shiftedHistory(t *testing.T, dir string) (folder, fifth string) {
	t.Helper()
	folder = filepath.Join(dir, "nightly")
	jitter := []float64{1, 1.01, 0.99, 1.005, 1, 1.01, 0.99, 1.005}
	for night := range 8 {
		itl := 8.0
		if night >= 4 {
			itl = 10
		}
		itl *= jitter[night]
		plan := storedruntest.Chat("m", 40)
		shape := storedruntest.Shape{TTFT: 20 * time.Millisecond, ITL: time.Duration(itl * float64(time.Millisecond)), OSL: 16,
			Start: time.Date(2026, 1, 1+night, 0, 0, 0, 0, time.UTC)}
		name := fmt.Sprintf("%c-night%d", 'h'-night, night+1) // h-night1, g-night2, …: name order is reversed
		path := storedruntest.Profile(t, filepath.Join(folder, name), plan, storedruntest.Same(storedruntest.Make(40, shape)))
		if night == 4 {
			fifth = path
		}
	}
	return folder, fifth
}

// `llmbench history DIR` finds the shift at the fifth night, with its
// size, in the trend table, compare.json, the Markdown summary and the
// trend plots; `compare` with the same runs as candidates finds it too.
func TestHistoryFindsTheShift(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	nightly, fifth := shiftedHistory(t, dir)
	r := runCLI(t, dir, "history", "nightly", "--metrics", "itl.p50,ttft.p50", "--json", "h.json", "--summary-md", "h.md", "--plot-dir", "plots")
	if r.code != 0 {
		t.Fatalf("history: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"nightly: 8 runs, oldest first", "◆ change point: concurrency1 itl.p50 from d-night5: 8.0", "→ 10.0",
		"1 change point found (E-divisive means, t-test p ≤ 0.001, shifts of 5% or more, over 8 runs)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("history's output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "ttft.p50 from") {
		t.Errorf("a change point in ttft, which did not move:\n%s", r.stdout)
	}
	var f comparison.File
	raw, err := os.ReadFile(filepath.Join(dir, "h.json"))
	if err == nil {
		err = json.Unmarshal(raw, &f)
	}
	if err != nil {
		t.Fatal(err)
	}
	if cps := f.ChangePoints; cps == nil || len(cps.Found) != 1 || cps.Runs != 8 || cps.Found[0].Run != filepath.Join("nightly", filepath.Base(fifth)) ||
		cps.Found[0].RunIndex != 4 || cps.Found[0].Metric != "itl.p50" || !(cps.Found[0].Change > 0.2 && cps.Found[0].Change < 0.3) {
		t.Errorf("compare.json's change points: %+v, want itl.p50's at %s (run 4 of 0–7), about +25%%", shown(f.ChangePoints), fifth)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "h.md"))
	if !strings.Contains(string(md), "**1 change point over the history**") || !strings.Contains(string(md), "| concurrency1 | itl.p50 | `nightly/d-night5") {
		t.Errorf("summary lacks the change point table:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(dir, "plots", "trend-concurrency1-itl_p50.png")); err != nil {
		entries, _ := os.ReadDir(filepath.Join(dir, "plots"))
		t.Errorf("no itl.p50 trend plot: %v (plots: %v)", err, entries)
	}
	// compare: the baseline apart, the seven later nights the series.
	var later []string
	for _, e := range mustReadDir(t, nightly) {
		if !strings.HasSuffix(e, "night1") {
			later = append(later, filepath.Join("nightly", e))
		}
	}
	r = runCLI(t, dir, append([]string{"compare", "nightly/h-night1", "--metrics", "itl.p50"}, later...)...)
	if !strings.Contains(r.stdout, "◆ change point: concurrency1 itl.p50 from d-night5") {
		t.Errorf("compare over the history: exit %d, no change point at night 5:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func shown(c *comparison.FileChangePoints) any {
	if c == nil {
		return nil
	}
	return *c
}

func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// A history of one run, an empty folder and detector settings out of
// range are exit 2 with a message naming the folder or the flag.
func TestHistoryBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plan := storedruntest.Chat("m", 20)
	storedruntest.Profile(t, filepath.Join(dir, "one", "run1"), plan,
		storedruntest.Same(storedruntest.Make(20, storedruntest.Shape{TTFT: 20 * time.Millisecond, ITL: 8 * time.Millisecond})))
	storedruntest.Profile(t, filepath.Join(dir, "two", "run1"), plan,
		storedruntest.Same(storedruntest.Make(20, storedruntest.Shape{TTFT: 20 * time.Millisecond, ITL: 8 * time.Millisecond})))
	storedruntest.Profile(t, filepath.Join(dir, "two", "run2"), plan,
		storedruntest.Same(storedruntest.Make(20, storedruntest.Shape{TTFT: 20 * time.Millisecond, ITL: 8 * time.Millisecond,
			Start: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)})))
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"history", "one"}, "one: one run, not a history: llmbench history wants a folder of two or more runs"},
		{[]string{"history", "one/run1"}, "one/run1: one run, not a history"},
		{[]string{"history", "empty"}, "empty: no records.parquet"},
		{[]string{"history", "missing"}, "missing"},
		{[]string{"history", "two", "--change-p-value", "0"}, "--change-p-value: got 0, want a level in (0, 1)"},
		{[]string{"history", "two", "--change-min-magnitude=-5%"}, "--change-min-magnitude: got \"-5%\""},
		{[]string{"history", "two", "--change-window", "2"}, "--change-window: got 2, want at least 3 runs"},
		{[]string{"compare", "two/run1", "two/run2", "--change-window", "2"}, "--change-window: got 2"},
	} {
		r := runCLI(t, dir, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s", c.args, r.code, c.want, r.stderr)
		}
	}
	if r := runCLI(t, dir, "history", "two"); r.code != 0 || !strings.Contains(r.stdout, "0 change points found") {
		t.Errorf("a history of two runs: exit %d, want 0 saying no change point\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
