package comparison

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/plots"
)

// shiftedHistory is six nightly runs against runs/base: itl.p99 at
// 10, 10.1, 9.9 ms, then 12, 12.1, 11.9 ms from the fourth (runs/n4) on,
// ttft.p99 steady at 100 ms ± 0.5%. By hand (Otava's t-test, population
// variances 0.02/3 on each side, pooled 0.02/3, standard error 1/15 ms):
// t = 2/(1/15) = 30 with 4 degrees of freedom, p = 7.35e-06 (scipy).
func shiftedHistory() []*Report {
	lower := metrics.LowerIsBetter
	itl := []float64{10, 10.1, 9.9, 12, 12.1, 11.9}
	ttft := []float64{100, 100.5, 99.5, 100.2, 99.8, 100}
	var out []*Report
	for i := range itl {
		out = append(out, &Report{Baseline: "runs/base", Candidate: "runs/n" + string(rune('1'+i)), Tolerance: 0.1, Confidence: 0.95,
			Points: []Point{{Experiment: "chat", Label: "c8", Metrics: []metrics.Comparison{
				judged("itl.p99", lower, 10e6, itl[i]*1e6, 0.9, 1.3, metrics.VerdictNoChange),
				judged("ttft.p99", lower, 100e6, ttft[i]*1e6, 0.9, 1.1, metrics.VerdictNoChange)}}}})
	}
	return out
}

func detectAt5Percent() metrics.ChangePointOptions {
	opt := metrics.DefaultChangePointOptions()
	opt.MinMagnitude = 0.05
	return opt
}

// The shift is found at the fourth run, with its size and significance;
// the steady metric has none. With the baseline as the history's oldest
// run (llmbench history) its value leads the series: the same run, the
// level before it over four values.
func TestFindChangePointsAtTheKnownRun(t *testing.T) {
	cp, err := FindChangePoints(shiftedHistory(), false, detectAt5Percent())
	if err != nil {
		t.Fatal(err)
	}
	want := Shift{Experiment: "chat", Point: "c8", Metric: "itl.p99", Run: 3, RunPath: "runs/n4", Before: 10e6, After: 12e6,
		PValue: 7.352856097661218e-06}
	if cp.Runs != 6 || len(cp.Found) != 1 || !sameShift(cp.Found[0], want) {
		t.Fatalf("change points over 6 runs: %+v, want %+v", cp, want)
	}
	cp, err = FindChangePoints(shiftedHistory(), true, detectAt5Percent())
	if err != nil {
		t.Fatal(err)
	}
	want.Before, want.PValue = 10e6, 3.6934088928705565e-07 // [10 10 10.1 9.9] against [12 12.1 11.9]
	if cp.Runs != 7 || len(cp.Found) != 1 || !sameShift(cp.Found[0], want) || cp.seriesIndex(cp.Found[0]) != 4 {
		t.Fatalf("change points with the baseline a run: %+v, want %+v at index 4 of 7", cp, want)
	}
	if _, err := FindChangePoints(shiftedHistory(), false, metrics.ChangePointOptions{Window: 1, MaxPValue: 0.001}); err == nil {
		t.Error("a window of 1 was accepted")
	}
}

func sameShift(a, b Shift) bool {
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(y)) }
	return a.Experiment == b.Experiment && a.Point == b.Point && a.Metric == b.Metric && a.Run == b.Run &&
		a.RunPath == b.RunPath && near(a.Before, b.Before) && near(a.After, b.After) && near(a.PValue, b.PValue)
}

// Every writer shows the change point the newest report carries: the
// trend table marks the run and lists the shift, compare.json holds it in
// report units, the Markdown summary tabulates it, the trend series
// carries the levels between change points.
func TestChangePointsInEveryWriter(t *testing.T) {
	h := shiftedHistory()
	cp, err := FindChangePoints(h, false, detectAt5Percent())
	if err != nil {
		t.Fatal(err)
	}
	h[len(h)-1].History = cp
	var b bytes.Buffer
	if err := Trend(h)(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"12.00 ms (+20.0%) ◆", "◆ change point: chat/c8 itl.p99 from n4: 10.00 ms → 12.00 ms (+20.0%, p = 7.4e-06)",
		"1 change point found (E-divisive means, t-test p ≤ 0.001, shifts of 5% or more, over 6 runs)."} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("trend table lacks %q:\n%s", want, b.String())
		}
	}
	if n := strings.Count(b.String(), "◆"); n != 2 {
		t.Errorf("%d marks, want 2 (the run's cell and the list):\n%s", n, b.String())
	}
	f := FileOf(h[len(h)-1]).ChangePoints
	if f == nil || len(f.Found) != 1 || f.Found[0].Before != 10 || f.Found[0].After != 12 || f.Found[0].Unit != "ms" ||
		f.Found[0].RunIndex != 3 || math.Abs(float64(f.Found[0].Change)-0.2) > 1e-12 || f.Runs != 6 || f.MinMagnitude != 0.05 {
		t.Errorf("compare.json's change points: %+v", f)
	}
	if FileOf(h[0]).ChangePoints != nil {
		t.Error("a comparison with no history has change points in compare.json")
	}
	b.Reset()
	if err := writeMarkdown(&b, h[len(h)-1], "/work"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| chat/c8 | itl.p99 | `runs/n4` | 10.00 ms | 12.00 ms | +20.0% | 7.4e-06 |") {
		t.Errorf("summary lacks the change point row:\n%s", b.String())
	}
	trends := TrendSeries(h)
	wantLevels := []plots.TrendLevel{{From: 0, To: 2, Value: 10}, {From: 3, To: 5, Value: 12, Shift: "+20.0%, p = 7.4e-06"}}
	if !slices.EqualFunc(trends[0].Levels, wantLevels, func(a, b plots.TrendLevel) bool {
		return a.From == b.From && a.To == b.To && a.Shift == b.Shift && math.Abs(a.Value-b.Value) < 1e-9
	}) {
		t.Errorf("itl.p99 levels %+v, want %+v", trends[0].Levels, wantLevels)
	}
	if len(trends[1].Levels) != 1 || trends[1].Levels[0].Shift != "" || trends[0].ChangeMethod == "" {
		t.Errorf("ttft.p99 levels %+v, want one level, no shift", trends[1].Levels)
	}
}

// No change point anywhere is said in one line in the summary.
func TestNoChangePointSaid(t *testing.T) {
	h := shiftedHistory()[:3]
	cp, err := FindChangePoints(h, false, detectAt5Percent())
	if err != nil {
		t.Fatal(err)
	}
	h[2].History = cp
	var b bytes.Buffer
	if err := writeMarkdown(&b, h[2], "/work"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "**No change point over the history** (E-divisive means, t-test p ≤ 0.001, shifts of 5% or more, over 3 runs).") {
		t.Errorf("summary:\n%s", b.String())
	}
}

// A run with no finite value for a metric is left out of its series, not
// an error: the shift is still found at its run.
func TestChangePointsSkipANonFiniteValue(t *testing.T) {
	h := shiftedHistory()
	nan := append(h[:1:1], &Report{Baseline: "runs/base", Candidate: "runs/gap", Points: []Point{{Experiment: "chat", Label: "c8",
		Metrics: []metrics.Comparison{judged("itl.p99", metrics.LowerIsBetter, 10e6, math.NaN(), 0.9, 1.1, metrics.VerdictInconclusive)}}}})
	h = append(nan, h[1:]...)
	cp, err := FindChangePoints(h, false, detectAt5Percent())
	if err != nil {
		t.Fatal(err)
	}
	var itl []Shift
	for _, s := range cp.Found {
		if s.Metric == "itl.p99" {
			itl = append(itl, s)
		}
	}
	if len(itl) != 1 || itl[0].RunPath != "runs/n4" || itl[0].Run != 4 {
		t.Errorf("change points with a NaN run: %+v, want itl.p99's at runs/n4 (run 4)", cp.Found)
	}
}
