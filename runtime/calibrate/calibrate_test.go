package calibrate

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
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
		lo, hi := Wilson(c.k, c.n, Z95)
		if math.Abs(lo-c.lo) > 1e-6 || math.Abs(hi-c.hi) > 1e-6 {
			t.Errorf("Wilson(%d, %d) = %.7f, %.7f, want %.7f, %.7f", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
	if lo, hi := Wilson(0, 0, Z95); lo != 0 || hi != 1 {
		t.Errorf("Wilson(0, 0) = %g, %g, want the whole [0, 1]", lo, hi)
	}
}

func TestFormatting(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Pct(0.05), "5%"}, {Pct(0.15), "15%"}, {Pct(0.125), "12.5%"}, {Signed(0.0961), "+9.6%"}, {Signed(math.NaN()), "–"},
		{Rate(8, 200), "8/200 = 4.0%"}, {Rate(0, 0), "–"}, {Interval(8, 200), "2.0%–7.7%"}, {Unsigned(math.Inf(1)), "∞"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestOrder: history first, the other pools interleaved in proportion,
// and the seeds of the runs measured stay theirs when a pool grows (a
// resumed calibration with a bigger pool keeps its runs).
func TestOrder(t *testing.T) {
	ps := []Pool{{Name: "same", Runs: 4}, {Name: "h", Runs: 2, History: true}, {Name: "slow", Runs: 2}}
	var got []string
	for _, s := range Order(ps, 10) {
		got = append(got, s.Pool)
	}
	want := []string{"h", "h", "same", "slow", "same", "same", "slow", "same"}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	seeds := map[key]int64{}
	for _, s := range Order(ps, 10) {
		seeds[key{s.Pool, s.Index}] = s.Seed
	}
	ps[0].Runs = 9
	grown := Order(ps, 10)
	distinct := map[int64]bool{}
	for _, s := range grown {
		if old, ok := seeds[key{s.Pool, s.Index}]; ok && old != s.Seed {
			t.Errorf("%s #%d: seed %d became %d when the pool grew", s.Pool, s.Index, old, s.Seed)
		}
		distinct[s.Seed] = true
	}
	if len(distinct) != len(grown) {
		t.Errorf("seeds repeat: %v", grown)
	}
}

// TestReplaceInDoc: the tables go between the markers and nothing else
// moves; a document without them is refused, naming what is missing.
func TestReplaceInDoc(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.md")
	if err := os.WriteFile(path, []byte("intro\n<!-- calibrate:sim -->\nold\ntable\n<!-- /calibrate:sim -->\nafter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceInDoc(path, "calibrate:sim", "new\n"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if want := "intro\n<!-- calibrate:sim -->\nnew\n<!-- /calibrate:sim -->\nafter\n"; string(got) != want {
		t.Errorf("doc:\n%s\nwant\n%s", got, want)
	}
	if err := ReplaceInDoc(path, "calibrate:real", "x\n"); err == nil || !strings.Contains(err.Error(), `"<!-- calibrate:real -->"`) {
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
	s := LogSpread(v)
	if math.Abs(s.Robust-0.14826) > 1e-9 || math.Abs(s.SD-2.2165) > 1e-4 || math.Abs(s.Median-math.Exp(0.1)) > 1e-12 || s.Max != math.Exp(5) {
		t.Errorf("spread %+v", s)
	}
}

// TestRecommend checks the sizes against values computed by hand (docs
// in recommend.go), for a gate of tolerance 10% (L = ln 1.1 = 0.0953102)
// in a family of 3 at α = 5% (z = z(1 − 0.05/3) = 2.1280452), with
// z₀.₉₉ = 2.3263479 and z₀.₉₀ = 1.2815516.
func TestRecommend(t *testing.T) {
	L, z := math.Log(1.1), NormalQuantile(1-0.05/3)
	if math.Abs(z-2.1280452) > 1e-6 || math.Abs(z99-2.3263479) > 1e-6 || math.Abs(z90-1.2815516) > 1e-6 {
		t.Fatalf("quantiles %g %g %g", z, z99, z90)
	}
	for _, c := range []struct {
		name  string
		noise Noise
		D     float64
		se    float64
		want  Recommendation
	}{{
		// D = ln 1.3 = 0.2623643: L/z₀.₉₉ = 0.0409699, (D − L)/z₀.₉₀ =
		// 0.1303530, D/(z + z₀.₉₀) = 0.0769488, so se* = 0.0409699 (the
		// false alarms bind), se*² = 0.00167853. τ² = 0.0004, w = 0.0009,
		// v = 0.0003, n₀ = 3, R₀ = 100: n = 0.0009/(0.000839265 − 0.0004)
		// = 2.049 → 3; V₀ = 0.0004 + 0.0003 = 0.0007, h = 0.0007/
		// (0.00167853 − 0.0007) = 0.715 → 1; k = 2·0.0007/0.00167853 =
		// 0.83 → 1; ω² = 0.0006, R = 0.0003·100/(3·0.000439265 − 0.0006)
		// = 41.79 → 42.
		name: "false alarms bind", noise: Noise{Between: 0.0004, Within: 0.0009, Sampling: 0.0003, Repeats: 3, Requests: 100}, D: math.Log(1.3),
		se: 0.0409699, want: Recommendation{Detectable: true, Repeats: 3, History: 1, Runs: 1, Requests: 42},
	}, {
		// D = ln 1.15 = 0.1397619: (D − L)/z₀.₉₀ = 0.0346859 is the
		// smallest, se*² = 0.00120311. τ² = 0.0005, w = 0.0012, v =
		// 0.0002: n = 0.0012/(0.000601556 − 0.0005) = 11.82 → 12; V₀ =
		// 0.0009, h = 0.0009/0.00030311 = 2.97 → 3; k = 0.0018/0.00120311
		// = 1.50 → 2; 3·0.000101556 − 0.001 < 0: no request count.
		name: "detection binds", noise: Noise{Between: 0.0005, Within: 0.0012, Sampling: 0.0002, Repeats: 3, Requests: 50}, D: math.Log(1.15),
		se: 0.0346859, want: Recommendation{Detectable: true, Repeats: 12, History: 3, Runs: 2},
	}, {
		// τ² = 0.001 ≥ se*²/2 = 0.000839: no repeat count and no
		// request count; V₀ = 0.001 + 0.0003/3 = 0.0011, h = 0.0011/
		// 0.00057853 = 1.90 → 2, k = 0.0022/0.00167853 = 1.31 → 2.
		name: "drift between runs", noise: Noise{Between: 0.001, Within: 0.0003, Sampling: 0.0001, Repeats: 3, Requests: 20}, D: math.Log(1.3),
		se: 0.0409699, want: Recommendation{Detectable: true, History: 2, Runs: 2},
	}, {
		// v = 0.0012 > w = 0.0009: the halves of a repeat differ more
		// than its repeats, so no request count (the rest as the first
		// case).
		name: "halves disagree", noise: Noise{Between: 0.0004, Within: 0.0009, Sampling: 0.0012, Repeats: 3, Requests: 100}, D: math.Log(1.3),
		se: 0.0409699, want: Recommendation{Detectable: true, Repeats: 3, History: 1, Runs: 1, HalvesDisagree: true},
	}, {
		// D = ln 1.05 within the tolerance: nothing detects it 90% of the
		// time; the sizes are the false alarms' alone (as the first case).
		name: "within tolerance", noise: Noise{Between: 0.0004, Within: 0.0009, Sampling: 0.0003, Repeats: 3, Requests: 100}, D: math.Log(1.05),
		se: 0.0409699, want: Recommendation{Detectable: false, Repeats: 3, History: 1, Runs: 1, Requests: 42},
	}} {
		got := Recommend(c.noise, Target{Threshold: L, Change: c.D, Z: z})
		if math.Abs(got.MaxSE-c.se) > 1e-6 {
			t.Errorf("%s: se* %.7f, want %.7f", c.name, got.MaxSE, c.se)
		}
		got.MaxSE = 0
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestFalseAlarmBound: V₀ = 0.0004 + 0.0009/3 = 0.0007, √(2·V₀) =
// 0.0374166, L/that = 2.5472717, 1 − Φ(2.5472717) = 0.0054284.
func TestFalseAlarmBound(t *testing.T) {
	got := FalseAlarmBound(Noise{Between: 0.0004, Within: 0.0009, Repeats: 3}, math.Log(1.1))
	if math.Abs(got-0.0054284) > 1e-7 {
		t.Errorf("bound %.7f, want 0.0054284", got)
	}
}

// TestSplitVariance: runs of ln values {0, 0.02, 0.04} and {0.1, 0.12,
// 0.14} have within-run squared deviations 0.0004 + 0 + 0.0004 each, so
// w = 0.0016/4 = 0.0004; their means 0.02 and 0.12 have s² = 0.005, so
// τ² = 0.005 − 0.0004·(⅓ + ⅓)/2 = 0.0048667. Runs of one repeat show no
// w; one run shows nothing.
func TestSplitVariance(t *testing.T) {
	b, w := SplitVariance([][]float64{{0, 0.02, 0.04}, {0.1, 0.12, 0.14}})
	if math.Abs(w-0.0004) > 1e-12 || math.Abs(b-0.0048666667) > 1e-9 {
		t.Errorf("between %g, within %g", b, w)
	}
	if b, w := SplitVariance([][]float64{{0}, {0.1}}); w != 0 || math.Abs(b-0.005) > 1e-12 {
		t.Errorf("one repeat a run: between %g, within %g", b, w)
	}
	if b, w := SplitVariance([][]float64{{0, 1}}); !math.IsNaN(b) || !math.IsNaN(w) {
		t.Errorf("one run: between %g, within %g", b, w)
	}
}

// TestStoreReadsOldRuns: a store bench/calibrate wrote before runs had
// points (measure.json, runs holding Records) opens, its runs with one
// point measured once.
func TestStoreReadsOldRuns(t *testing.T) {
	dir := t.TempDir()
	type settings struct{ Requests int }
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, oldSettingsFile), []byte(`{"Requests": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	st := &Store{dir: dir}
	old := &Run{Spec: RunSpec{Pool: "same", Index: 0, Seed: 7}, Records: []metrics.Record{{ID: 1}, {ID: 2}}}
	if err := writeRun(st.runFile(old.Spec), old); err != nil {
		t.Fatal(err)
	}
	s := settings{Requests: 3}
	got, err := OpenStore(dir, &s, false, func(s settings) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	r := got.Pool("same", -1)
	if len(r) != 1 || len(r[0].Single()) != 2 || r[0].Records != nil || !got.Has(RunSpec{Pool: "same", Seed: 7}) {
		t.Fatalf("runs %+v", r)
	}
	other := settings{Requests: 4}
	if _, err := OpenStore(dir, &other, false, func(s settings) string { return "made otherwise" }); err == nil || !strings.Contains(err.Error(), "holds runs made otherwise (made otherwise)") {
		t.Errorf("other settings: %v", err)
	}
}

// TestHalves: a repeat's measured requests, in send order, dealt
// alternately; warm-up requests in neither half.
func TestHalves(t *testing.T) {
	recs := []metrics.Record{{ID: 0, Sent: 5, Warmup: true}, {ID: 1, Sent: 30}, {ID: 2, Sent: 10}, {ID: 3, Sent: 20}, {ID: 4, Sent: 40}}
	a, b := halves(recs)
	ids := func(rs []metrics.Record) (out []int64) {
		for _, r := range rs {
			out = append(out, int64(r.ID))
		}
		return out
	}
	// Send order 2 (10), 3 (20), 1 (30), 4 (40): a gets 2 and 1, b 3 and
	// 4, each in completion (slice) order.
	if !slices.Equal(ids(a), []int64{1, 2}) || !slices.Equal(ids(b), []int64{3, 4}) {
		t.Errorf("halves %v %v", ids(a), ids(b))
	}
}
