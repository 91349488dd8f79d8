package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/transport/sim"
)

// TestWilson checks the interval against values computed by hand from
// center = (p + z²/2n)/(1 + z²/n), half = z/(1 + z²/n)·√(p(1−p)/n + z²/4n²).
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{
		// p = 0.04, z² = 3.8414588, z²/n = 0.0192073: center
		// 0.0496036/1.0192073 = 0.0486688, half 1.9230270 × √0.000216009
		// = 0.0282632.
		{8, 200, 0.0204056, 0.0769321},
		// k = 0: lo 0, hi = (z²/n)/(1 + z²/n) = 0.0188453.
		{0, 200, 0, 0.0188453},
		// k = n mirrors k = 0.
		{200, 200, 1 - 0.0188453, 1},
		// p = 0.5, n = 10: z²/n = 0.3841459, center 0.5, half
		// 1.4160097 × √0.0346036 = 0.2634069.
		{5, 10, 0.2365931, 0.7634069},
	} {
		lo, hi := wilson(c.k, c.n, z95)
		if math.Abs(lo-c.lo) > 1e-6 || math.Abs(hi-c.hi) > 1e-6 {
			t.Errorf("wilson(%d, %d) = %.7f, %.7f, want %.7f, %.7f", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
	if lo, hi := wilson(0, 0, z95); lo != 0 || hi != 1 {
		t.Errorf("wilson(0, 0) = %g, %g, want the whole [0, 1]", lo, hi)
	}
}

func TestFormatting(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{pct(0.05), "5%"}, {pct(0.15), "15%"}, {pct(0.125), "12.5%"}, {signed(0.0961), "+9.6%"}, {signed(math.NaN()), "–"},
		{rate(8, 200), "8/200 = 4.0%"}, {rate(0, 0), "–"}, {interval(8, 200), "2.0%–7.7%"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

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
	if e := ps[3].Effect; math.Abs(e.itl()-1/0.9) > 1e-12 || e.ttft() != e.itl() {
		t.Errorf("throughput-10%% effect %+v, want every delay ×1/0.9", e)
	}
	if e := ps[4].Effect; math.Abs(e.itl()-1.2) > 1e-12 || e.ttft() != 1 {
		t.Errorf("itl+20%% effect %+v, want ITL ×1.2 and TTFT unchanged", e)
	}
	if !ps[7].Shift || ps[7].Effect.ttft() != 2 || detectionGoal(ps[7]) != "100%" || detectionGoal(ps[1]) != "35–65%" || detectionGoal(ps[4]) != "≥ 95%" {
		t.Errorf("shift pool %+v or goals wrong", ps[7])
	}
}

// TestOrder: history first, the other pools interleaved in proportion,
// and the seeds of the runs measured stay theirs when a pool grows (a
// resumed calibration with a bigger pool keeps its runs).
func TestOrder(t *testing.T) {
	ps := []pool{{Name: "same", Runs: 4}, {Name: "h", Runs: 2, History: true}, {Name: "slow", Runs: 2}}
	var got []string
	for _, s := range order(ps, 10) {
		got = append(got, s.Pool)
	}
	want := []string{"h", "h", "same", "slow", "same", "same", "slow", "same"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	seeds := map[runKey]int64{}
	for _, s := range order(ps, 10) {
		seeds[runKey{s.Pool, s.Index}] = s.Seed
	}
	ps[0].Runs = 9
	grown := order(ps, 10)
	for _, s := range grown {
		if old, ok := seeds[runKey{s.Pool, s.Index}]; ok && old != s.Seed {
			t.Errorf("%s #%d: seed %d became %d when the pool grew", s.Pool, s.Index, old, s.Seed)
		}
	}
	if len(seedsOf(grown)) != len(grown) {
		t.Errorf("seeds repeat: %v", grown)
	}
}

func seedsOf(specs []runSpec) map[int64]bool {
	out := map[int64]bool{}
	for _, s := range specs {
		out[s.Seed] = true
	}
	return out
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
	st := &store{runs: map[runKey]*storedRun{}}
	for _, s := range order(c.pools(), c.Seed) {
		st.runs[runKey{s.Pool, s.Index}] = &storedRun{Spec: s}
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
			if !s.applies(p) {
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
				if distinctRuns([]pair{pr}) != s.Base+s.Cand {
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
			if p.Shift && distinctRuns(pairs) != 2*len(pairs) {
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
	for i, s := range order(c.pools(), c.Seed) {
		st.runs[runKey{s.Pool, s.Index}].Started = start.Add(time.Duration(i) * time.Minute)
	}
	ss := setupsOf(c)
	if len(ss) != 2 || ss[0].Base != 5 || !ss[1].Rolling {
		t.Fatalf("setups %v", ss)
	}
	ps := c.pools()
	if ss[0].applies(ps[0]) || !ss[0].applies(ps[1]) || !ss[0].applies(ps[2]) {
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
	st, err := openStore(c.store, c.measure, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := measureMissing(context.Background(), c, st); err != nil {
		t.Fatal(err)
	}
	again, err := openStore(c.store, c.measure, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(again.runs); n != 7+6*3+1 {
		t.Fatalf("the store holds %d runs, want 26", n)
	}
	for _, s := range order(c.pools(), c.Seed) {
		if !again.has(s) {
			t.Errorf("%s #%d was not kept", s.Pool, s.Index)
		}
	}
	r := again.pool("same", -1)[0]
	if len(r.Records) != 6 || r.Drift == 1 || r.Drift != sim.DriftFactor(0.05, r.Spec.Seed) {
		t.Errorf("run %+v: %d records, drift %g", r.Spec, len(r.Records), r.Drift)
	}
	other := c.measure
	other.Requests = 7
	if _, err := openStore(c.store, other, false); err == nil || !strings.Contains(err.Error(), "holds runs made otherwise") {
		t.Errorf("a store of other runs: %v", err)
	}
	if _, err := openStore(c.store, other, true); err != nil {
		t.Errorf("-judge-only takes the store's own settings: %v", err)
	}
}

// TestReplaceInDoc: the tables go between the markers and nothing else
// moves; a document without them is refused, naming what is missing.
func TestReplaceInDoc(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.md")
	if err := os.WriteFile(path, []byte("intro\n<!-- calibrate:sim -->\nold\ntable\n<!-- /calibrate:sim -->\nafter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := replaceInDoc(path, "calibrate:sim", "new\n"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if want := "intro\n<!-- calibrate:sim -->\nnew\n<!-- /calibrate:sim -->\nafter\n"; string(got) != want {
		t.Errorf("doc:\n%s\nwant\n%s", got, want)
	}
	if err := replaceInDoc(path, "calibrate:real", "x\n"); err == nil || !strings.Contains(err.Error(), `"<!-- calibrate:real -->"`) {
		t.Errorf("no markers: %v", err)
	}
}

// TestLogSpread: ln values 0, 0.1, −0.1, 0.2 and an outlier 5 have median
// 0.1 and absolute deviations 0.1, 0, 0.2, 0.1, 4.9 with median 0.1, so a
// robust SD of 0.14826 that the outlier does not move; their mean is 1.04
// and their SD √(Σ(l − 1.04)²/4) = √(19.652/4) = 2.2165.
func TestLogSpread(t *testing.T) {
	var v []float64
	for _, l := range []float64{0, 0.1, -0.1, 0.2, 5} {
		v = append(v, math.Exp(l))
	}
	s := logSpread(v)
	if math.Abs(s.robust-0.14826) > 1e-9 || math.Abs(s.sd-2.2165) > 1e-4 || math.Abs(s.median-math.Exp(0.1)) > 1e-12 || s.max != math.Exp(5) {
		t.Errorf("spread %+v", s)
	}
}
