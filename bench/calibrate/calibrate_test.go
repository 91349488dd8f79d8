package main

import (
	"context"
	"fmt"
	"github.com/llmbench/llmbench/runtime/calibrate"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/transport/sim"
)

// TestGateFamily: the four gates at 10%, as a scenario writes them.
func TestGateFamily(t *testing.T) {
	want := "`itl.p50 <= baseline * 1.1`, `itl.p99 <= baseline * 1.1`, `ttft.p99 <= baseline * 1.1`, `output_token_throughput >= baseline * 0.9`"
	if got := gateList(0.10); got != want {
		t.Errorf("gates at 10%%:\n%s\nwant\n%s", got, want)
	}
}

func simConfigForTest() config {
	return config{measure: measure{Target: "sim", Seed: 1}, Tolerance: 0.10, SameRuns: 18, EffectRuns: 4, ShiftRuns: 2, Pairs: 10}
}

// TestSimPools: a throughput drop of k tolerances scales every delay by
// 1/(1 − k·tol) (so a closed loop's rate is exactly 1 − k·tol of what it
// was); latency changes scale only the knobs behind their metric.
func TestSimPools(t *testing.T) {
	ps := simPools(simConfigForTest())
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	want := []string{"same", "itl+10%", "ttft+10%", "throughput-10%", "itl+20%", "ttft+20%", "throughput-20%", "ttft×2"}
	if !slices.Equal(names, want) {
		t.Fatalf("pools %v, want %v", names, want)
	}
	if e := ps[3].Effect; math.Abs(e.ITLFactor()-1/0.9) > 1e-12 || e.TTFTFactor() != e.ITLFactor() {
		t.Errorf("throughput-10%% effect %+v, want every delay ×1/0.9", e)
	}
	if e := ps[4].Effect; math.Abs(e.ITLFactor()-1.2) > 1e-12 || e.TTFTFactor() != 1 {
		t.Errorf("itl+20%% effect %+v, want ITL ×1.2 and TTFT unchanged", e)
	}
	if !ps[7].Shift || ps[7].Effect.TTFTFactor() != 2 || detectionGoal(ps[7]) != "100%" || detectionGoal(ps[1]) != "35–65%" || detectionGoal(ps[4]) != "≥ 95%" {
		t.Errorf("shift pool %+v or goals wrong", ps[7])
	}
}

// TestSimConfig: a run's simulator drifts by the factor its own seed
// draws, and the pool's effect scales only the knobs it names.
func TestSimConfig(t *testing.T) {
	m := measure{Sim: simTimings{TTFT: 10 * time.Millisecond, ITL: 2 * time.Millisecond, Jitter: 0.05, Drift: 0.05}}
	cfg := simConfig(m, runSpec{Seed: 3}, effect{ITL: 1.5})
	if cfg.Drift != 0.05 || cfg.DriftSeed != 3 || cfg.Seed != 3 || cfg.Jitter != 0.05 {
		t.Errorf("drift %g seed %d, jitter seed %d, jitter %g", cfg.Drift, cfg.DriftSeed, cfg.Seed, cfg.Jitter)
	}
	if cfg.ITL != 3*time.Millisecond || cfg.TTFT != 10*time.Millisecond {
		t.Errorf("ITL %s, TTFT %s with ITL ×1.5", cfg.ITL, cfg.TTFT)
	}
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// fakeStore holds empty runs of every pool of c, as a measured store
// would.
func fakeStore(c config) *store {
	st, err := calibrate.OpenStore("", &c.measure, false, measure.describe)
	if err != nil {
		panic(err)
	}
	for _, s := range calibrate.Order(c.pools(), c.Seed) {
		if err := st.Add(&storedRun{Spec: s}); err != nil {
			panic(err)
		}
	}
	return st
}

// TestDrawPairs: every pair has the sizes of its setup, its runs are
// distinct and from the right pools, the shift's pairs share no run, and
// the same store draws the same pairs again.
func TestDrawPairs(t *testing.T) {
	c := simConfigForTest()
	st := fakeStore(c)
	for _, s := range setupsOf(c) {
		for _, p := range c.pools() {
			if !applies(s, p) {
				continue
			}
			pairs, err := drawPairs(st, c, s, p)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := drawPairs(st, c, s, p)
			want := p.Runs
			if len(p.Tests) == 0 {
				want = c.Pairs
			}
			if len(pairs) != want {
				t.Errorf("%s on %s: %d pairs, want %d", s.Name, p.Name, len(pairs), want)
			}
			for i, pr := range pairs {
				if len(pr.Base) != s.Base || len(pr.Cand) != s.Cand {
					t.Fatalf("%s on %s: a pair of %d vs %d", s.Name, p.Name, len(pr.Base), len(pr.Cand))
				}
				if calibrate.DistinctRuns([]pair{pr}) != s.Base+s.Cand {
					t.Errorf("%s on %s: a run on both sides or twice in a pair", s.Name, p.Name)
				}
				for _, r := range pr.Base {
					if r.Spec.Pool != "same" {
						t.Errorf("%s on %s: a baseline run from %s", s.Name, p.Name, r.Spec.Pool)
					}
				}
				for _, r := range pr.Cand {
					if r.Spec.Pool != p.Name {
						t.Errorf("%s on %s: a candidate from %s", s.Name, p.Name, r.Spec.Pool)
					}
				}
				if !slices.Equal(pr.Base, again[i].Base) || !slices.Equal(pr.Cand, again[i].Cand) {
					t.Errorf("%s on %s: pair %d drawn differently the second time", s.Name, p.Name, i)
				}
			}
			if p.Shift && calibrate.DistinctRuns(pairs) != 2*len(pairs) {
				t.Errorf("shift pairs share runs")
			}
			if p.Shift {
				// 2 shift runs among 18 unchanged ones: measured at ¼ and
				// ¾ of the schedule, beside unchanged runs 4 and 13.
				if got := [2]int{pairs[0].Base[0].Spec.Index, pairs[1].Base[0].Spec.Index}; got != [2]int{4, 13} {
					t.Errorf("shift pairs against unchanged runs %v, want [4 13] (the ones measured beside them)", got)
				}
			}
		}
	}
	small := c
	small.SameRuns = 5
	if _, err := drawPairs(fakeStore(small), c, repeats3, c.pools()[0]); err == nil || !strings.Contains(err.Error(), "5 runs measured, 6 needed") {
		t.Errorf("too few runs: %v", err)
	}
}

// TestRealPairs: on a real server every candidate is judged against the
// whole history.
func TestRealPairs(t *testing.T) {
	c := config{measure: measure{Target: "http://127.0.0.1:1/v1"}, Tolerance: 0.1, ProxyITL: 0.25, HistoryRuns: 5, SameRuns: 3, EffectRuns: 2}
	st := fakeStore(c)
	start := time.Date(2026, 12, 5, 17, 0, 0, 0, time.UTC)
	byKey := map[string]*storedRun{}
	for _, r := range st.All() {
		byKey[fmt.Sprintf("%s#%d", r.Spec.Pool, r.Spec.Index)] = r
	}
	for i, s := range calibrate.Order(c.pools(), c.Seed) {
		byKey[fmt.Sprintf("%s#%d", s.Pool, s.Index)].Started = start.Add(time.Duration(i) * time.Minute)
	}
	ss := setupsOf(c)
	if len(ss) != 2 || ss[0].Base != 5 || !ss[1].Rolling {
		t.Fatalf("setups %v", ss)
	}
	ps := c.pools()
	if applies(ss[0], ps[0]) || !applies(ss[0], ps[1]) || !applies(ss[0], ps[2]) {
		t.Fatal("the history must not be judged, the candidates must")
	}
	pairs, err := drawPairs(st, c, ss[0], ps[2])
	if err != nil || len(pairs) != 2 {
		t.Fatalf("%d pairs, %v", len(pairs), err)
	}
	for _, p := range pairs {
		if len(p.Base) != 5 || p.Base[0].Spec.Pool != "history" || p.Cand[0].Spec.Pool != "itl+25%" {
			t.Errorf("pair %+v", p)
		}
	}
	// Measured: history ×5, then same #0, slow #0, same #1, slow #1, same #2
	// (same at ⅙, ½, ⅚; slow at ¼, ¾). Rolling, slow #1's baseline is the
	// last five unchanged runs before it: history #2, #3, #4, same #0, #1.
	rolling, err := drawPairs(st, c, ss[1], ps[2])
	if err != nil || len(rolling) != 2 {
		t.Fatalf("%d rolling pairs, %v", len(rolling), err)
	}
	var got []string
	for _, r := range rolling[1].Base {
		got = append(got, fmt.Sprintf("%s#%d", r.Spec.Pool, r.Spec.Index))
	}
	if want := []string{"history#2", "history#3", "history#4", "same#0", "same#1"}; !slices.Equal(got, want) {
		t.Errorf("rolling baseline %v, want %v", got, want)
	}
}

// TestRows renders hand-filled tallies: 2 failing pairs of 300 is 0.7%,
// Wilson 0.2%–2.4%; the median of MDCs 5%, 7%, 9%, ∞ is 8%, of 30%, ∞, ∞
// is ∞; a before column comes from a -csv file.
func TestRows(t *testing.T) {
	ps := simPools(simConfigForTest())
	res := &results{
		Cells: []cell{
			{Setup: history5, Pool: ps[0], Tally: tally{Pairs: 300, Failed: 2, Distinct: 120,
				Regression: map[string]int{"itl.p50": 1, "output_token_throughput": 1}, Inconclusive: map[string]int{"itl.p99": 4},
				MDC: map[string][]float64{"itl.p99": {0.3, math.Inf(1), math.Inf(1)}}}},
			{Setup: history5, Pool: ps[1], Tally: tally{Pairs: 48, Distinct: 101,
				Regression: map[string]int{"itl.p50": 24, "itl.p99": 20}, Inconclusive: map[string]int{"itl.p50": 3},
				MDC: map[string][]float64{"itl.p50": {0.05, 0.07, 0.09, math.Inf(1)}}}},
		},
		Change: map[string]map[string]float64{"itl+10%": {"itl.p50": 0.0961, "itl.p99": 0.08}},
	}
	rows := rowsOf(res, true)
	if len(rows) != 7 {
		t.Fatalf("%d rows, want 1 + 4 false-alarm rows and 2 detection rows", len(rows))
	}
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "before.csv")
	if err := writeCSV(csvPath, rows); err != nil {
		t.Fatal(err)
	}
	before, err := readBefore(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	md := renderMarkdown(rows, before, "head\n")
	for _, want := range []string{
		"| none (same server) | any gate | – | 300 (120) | 2/300 = 0.7% | 0.2%–2.4% | – | – | ≤ 1% | 2/300 = 0.7% |\n",
		"| none (same server) | itl.p99 | – | 300 (120) | 0/300 = 0.0% | 0.0%–1.3% | 4 | ∞ | – | 0/300 = 0.0% |\n",
		"| ITL ×1.10 (simulator ITL knobs) | itl.p50 | +9.6% | 48 (101) | 24/48 = 50.0% | 36.4%–63.6% | 3 | 8.0% | 35–65% | 24/48 = 50.0% |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("tables lack\n%s\ngot\n%s", want, md)
		}
	}
	if err := os.WriteFile(csvPath, []byte("a,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readBefore(csvPath); err == nil || !strings.Contains(err.Error(), `not a calibrate -csv file (its first line has no column "setup")`) {
		t.Errorf("a foreign CSV as -before: %v", err)
	}
}

// TestMeasureResumes measures a tiny plan against the simulator into a
// store, reopens it, finds nothing left to measure, and refuses to add runs made otherwise to it.
func TestMeasureResumes(t *testing.T) {
	c := simConfigForTest()
	c.SameRuns, c.EffectRuns, c.ShiftRuns, c.Pairs = 7, 3, 1, 3
	c.measure = measure{Target: "sim", Model: "llmbench-sim", Requests: 6, Warmup: 1, Concurrency: 2, InputTokens: 8, OutputTokens: 3, Seed: 1,
		Sim: simTimings{TTFT: time.Millisecond, ITL: time.Millisecond, Jitter: 0.05, Drift: 0.05}}
	c.store = t.TempDir()
	st, err := calibrate.OpenStore(c.store, &c.measure, false, measure.describe)
	if err != nil {
		t.Fatal(err)
	}
	if err := measureMissing(context.Background(), c, st); err != nil {
		t.Fatal(err)
	}
	again, err := calibrate.OpenStore(c.store, &c.measure, false, measure.describe)
	if err != nil {
		t.Fatal(err)
	}
	if n := again.Len(); n != 7+6*3+1 {
		t.Fatalf("the store holds %d runs, want 26", n)
	}
	for _, s := range calibrate.Order(c.pools(), c.Seed) {
		if !again.Has(s) {
			t.Errorf("%s #%d was not kept", s.Pool, s.Index)
		}
	}
	r := again.Pool("same", -1)[0]
	if len(r.Single()) != 6 || r.Drift == 1 || r.Drift != sim.DriftFactor(0.05, r.Spec.Seed) {
		t.Errorf("run %+v: %d records, drift %g", r.Spec, len(r.Single()), r.Drift)
	}
	other := c.measure
	other.Requests = 7
	if _, err := calibrate.OpenStore(c.store, &other, false, measure.describe); err == nil || !strings.Contains(err.Error(), "holds runs made otherwise") {
		t.Errorf("a store of other runs: %v", err)
	}
	if _, err := calibrate.OpenStore(c.store, &other, true, measure.describe); err != nil || other != c.measure {
		t.Errorf("-judge-only takes the store's own settings: %v", err)
	}
}
