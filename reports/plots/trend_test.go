package plots

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// trendFixture is itl.p99 of a 10 ms baseline over four runs: no change,
// inconclusive, a regression (+25%, interval +20–30%), an improvement;
// the regressing run is left out when regress is false.
func trendFixture(regress bool) Trend {
	t := Trend{Experiment: "chat", Point: "concurrency16", Metric: "itl.p99", Unit: "ms", Direction: metrics.LowerIsBetter,
		Tolerance: 0.1, Confidence: 0.95, BaselineName: "main-2024-05-01", Baseline: 10, Limit: 11,
		Runs: []TrendRun{
			{Name: "pr-101", Measured: true, Value: 10.2, Low: 9.8, High: 10.6, Verdict: metrics.VerdictNoChange},
			{Name: "pr-102", Measured: true, Value: 10.9, Low: 10.3, High: 11.6, Verdict: metrics.VerdictInconclusive},
			{Name: "pr-103", Measured: true, Value: 12.5, Low: 12, High: 13, Verdict: metrics.VerdictRegression},
			{Name: "pr-104-without-the-point"},
			{Name: "pr-105", Measured: true, Value: 9, Low: 8.7, High: 9.3, Verdict: metrics.VerdictImprovement},
		}}
	if !regress {
		t.Runs = slices.Delete(t.Runs, 2, 3)
	}
	return t
}

// redPixels counts the pixels drawn in the regression red.
func redPixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 > 180 && g>>8 < 90 && bl>>8 < 90 {
				n++
			}
		}
	}
	return n
}

// A trend plot is a PNG of the usual size with red marks exactly when a
// run regressed, under a file name safe on every system.
func TestTrendPlotMarksRegressionsRed(t *testing.T) {
	dir := outDir(t)
	for _, tc := range []struct {
		name    string
		trend   Trend
		wantRed bool
	}{{"regression", trendFixture(true), true}, {"none", trendFixture(false), false}} {
		tc.trend.Point += "-" + tc.name
		paths, err := WriteTrendPlots(dir, []Trend{tc.trend})
		if err != nil {
			t.Fatal(err)
		}
		if want := "trend-chat-concurrency16-" + tc.name + "-itl_p99.png"; len(paths) != 1 || filepath.Base(paths[0]) != want {
			t.Fatalf("%s: wrote %v, want %s", tc.name, paths, want)
		}
		checkPNG(t, paths[0])
		b, err := os.ReadFile(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if n := redPixels(img); tc.wantRed != (n > 50) {
			t.Errorf("%s: %d red pixels, want red %v", tc.name, n, tc.wantRed)
		}
	}
}

// One candidate is a trend of one run; names that sanitise alike get
// files of their own; an unnamed experiment leaves its part out.
func TestTrendFiles(t *testing.T) {
	one := trendFixture(true)
	one.Runs = one.Runs[2:3]
	other := one
	other.Metric = "itl_p99"
	profile := one
	profile.Experiment, profile.Point, profile.Metric = "", "request_rate10.0", "ttft.p50"
	imgs, err := RenderTrends([]Trend{one, other, profile})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, img := range imgs {
		got = append(got, img.Name)
	}
	want := []string{"trend-chat-concurrency16-itl_p99.png", "trend-chat-concurrency16-itl_p99-2.png", "trend-request_rate10_0-ttft_p50.png"}
	if !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	if imgs, err := RenderTrends([]Trend{{Point: "concurrency1", Metric: "ttft.p50"}}); err != nil || len(imgs) != 0 {
		t.Errorf("a trend of no run: %d images, %v; want none", len(imgs), err)
	}
}

// The Y axis frames the baseline, the limit and every bar; a flat zero
// trend still gets a span.
func TestTrendRange(t *testing.T) {
	lo, hi := trendRange(ptr(trendFixture(true)))
	if lo > 8.7 || hi < 13 || lo < 0 {
		t.Errorf("range [%g, %g] does not frame 8.7–13", lo, hi)
	}
	flat := Trend{Runs: []TrendRun{{Measured: true}}}
	if lo, hi := trendRange(&flat); lo != 0 || hi <= 0 {
		t.Errorf("flat range [%g, %g]", lo, hi)
	}
}

func ptr[T any](v T) *T { return &v }

func TestSharedPrefix(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"nightly-2024-05-01", "nightly-2024-05-12"}, "nightly-2024-05-"},
		{[]string{"build-48", "build-4813"}, "build-"}, // not "build-48": a number is not cut
		{[]string{"mon", "tue"}, ""},
		{[]string{"x-1", "x-"}, ""}, // it would leave a name empty
		{[]string{"only-one"}, ""},
	} {
		if got := sharedPrefix(tc.names); got != tc.want {
			t.Errorf("sharedPrefix(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}

// labelled are the run axis' labelled ticks.
func labelled(p *Trend) (ticks []string, slanted bool, axis string) {
	pl, err := trendPlot(p)
	if err != nil {
		panic(err)
	}
	for _, tk := range pl.X.Tick.Marker.Ticks(pl.X.Min, pl.X.Max) {
		if tk.Label != "" {
			ticks = append(ticks, tk.Label)
		}
	}
	return ticks, pl.X.Tick.Label.Rotation != 0, pl.X.Label.Text
}

// A few short run names stand straight under their runs; many long ones
// lose their shared prefix (named on the axis), are slanted and, when
// even slanted ones would touch, labelled every other run or sparser.
func TestRunAxisLabels(t *testing.T) {
	few := trendFixture(true)
	few.Runs[3].Name = "pr-104"
	if ticks, slanted, _ := labelled(&few); slanted || len(ticks) != len(few.Runs) || ticks[0] != "pr-101" {
		t.Errorf("five short names: labels %q, slanted %v", ticks, slanted)
	}
	many := trendFixture(true)
	many.Runs = nil
	for i := range 33 {
		many.Runs = append(many.Runs, TrendRun{Name: fmt.Sprintf("nightly-2024-05-%02d-release-candidate-build-%d", i+1, 4800+i),
			Measured: true, Value: 10, Low: 9, High: 11, Verdict: metrics.VerdictNoChange})
	}
	ticks, slanted, axis := labelled(&many)
	if !slanted || len(ticks) >= len(many.Runs) || len(ticks) < 5 || !strings.Contains(axis, "nightly-2024-05-") ||
		!strings.HasPrefix(ticks[0], "01-rel") || !strings.HasSuffix(ticks[0], "build-4800") || len([]rune(ticks[0])) != maxRunLabel {
		t.Errorf("33 long names: %d labels %q, slanted %v, axis %q", len(ticks), ticks, slanted, axis)
	}
	many.Point = "many-runs"
	paths, err := WriteTrendPlots(outDir(t), []Trend{many})
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, paths[0])
}

// amberPixels counts the pixels drawn in the inconclusive amber.
func amberPixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 > 200 && g>>8 > 130 && g>>8 < 190 && bl>>8 < 60 {
				n++
			}
		}
	}
	return n
}

// A run with one bound only is an open bar: its bar data says which side
// is open, and the plot draws a bar running off the frame where, before,
// a missing bound left the run with no bar at all.
func TestOneSidedBoundIsAnOpenBar(t *testing.T) {
	open := trendFixture(false)
	open.Runs = open.Runs[1:2] // pr-102, inconclusive: 10.9 in [10.3, 11.6]
	open.Runs[0].High, open.Runs[0].OpenHigh, open.Runs[0].Unbounded = open.Runs[0].Value, true, "only 3 requests above p99"
	bars := trendBarsOf(&open, metrics.VerdictInconclusive)
	if len(bars) != 1 || !bars[0].OpenHigh || bars[0].OpenLow || bars[0].Low != 10.3 {
		t.Fatalf("bars %+v, want one open at the top from 10.3", bars)
	}
	markOnly := open
	markOnly.Runs = slices.Clone(open.Runs)
	markOnly.Runs[0].Low, markOnly.Runs[0].OpenHigh = markOnly.Runs[0].Value, false
	count := func(tr Trend) int {
		imgs, err := RenderTrends([]Trend{tr})
		if err != nil || len(imgs) != 1 {
			t.Fatalf("render: %v", err)
		}
		img, err := png.Decode(bytes.NewReader(imgs[0].PNG))
		if err != nil {
			t.Fatal(err)
		}
		return amberPixels(img)
	}
	if withBar, without := count(open), count(markOnly); withBar < without+200 {
		t.Errorf("the open bar drew %d amber pixels, the mark alone %d: no bar", withBar, without)
	}
}
