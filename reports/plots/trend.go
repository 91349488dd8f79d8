package plots

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmbench/llmbench/metrics"
)

// Trend is one metric of one point across a history of runs, each run
// compared with the same baseline: what a trend plot draws. Values are in
// report units (ms for times, % for error_rate).
type Trend struct {
	// Experiment and Point name the point ("" experiment for a profile
	// point); Metric is named as gates name it ("itl.p99").
	Experiment, Point, Metric string
	Unit                      string
	Direction                 metrics.Direction
	// Tolerance is the metric's --max-regression, Confidence the level of
	// the intervals.
	Tolerance, Confidence float64
	// BaselineName labels the baseline; Baseline is its value and Limit
	// the regression limit, Baseline × (1 ± Tolerance).
	BaselineName    string
	Baseline, Limit float64
	// Informational marks a metric judged apart from the gated ones: the
	// title says it fails nothing.
	Informational bool
	// Runs are the candidates in history order, oldest first.
	Runs []TrendRun
	// Levels are the history's levels between its change points, in run
	// order, drawn as a step line; the first run of every level after the
	// first is a change point, marked with its Shift. Nil when no change
	// points were searched for (a history of fewer than three runs).
	Levels []TrendLevel
	// ChangeMethod says how change points were found, for the subtitle.
	ChangeMethod string
}

// TrendLevel is one level of a history between change points: runs From
// to To (indexes into Runs, inclusive) at Value, the mean of their
// values.
type TrendLevel struct {
	From, To int
	Value    float64
	// Shift is the change into this level in words ("+12.7%, p = 0.0004");
	// "" for the first level.
	Shift string
}

// TrendRun is one run of a history at one point and metric.
type TrendRun struct {
	// Name labels the run on the X axis (its folder).
	Name string
	// Measured is false when the run has no such point: the run keeps its
	// place on the axis with nothing drawn.
	Measured bool
	// Value is the run's value; Low and High the one-sided confidence
	// bounds of the ratio to the baseline, each at the trend's level,
	// scaled by the baseline value.
	Value, Low, High float64
	// OpenLow and OpenHigh mark a bound that does not exist (too few
	// requests in the tail, say; Unbounded says why): its Low or High is
	// the Value, and the bar is drawn open on that side, running off the
	// plot to an arrowhead, so a run with one bound still shows it.
	OpenLow, OpenHigh bool
	// Unbounded says why a bound does not exist; "" when both do.
	Unbounded string
	// Detects is the run's minimum detectable change in words ("detects
	// ≥ 8.2%"); "" when the judge gave none.
	Detects string
	Verdict metrics.Verdict
}

// colAmber marks an inconclusive comparison: neither the red of a
// regression nor the blue of no change (Okabe–Ito orange, which reads
// apart from red for most colour-blind readers, and a triangle besides).
var colAmber = color.RGBA{R: 230, G: 159, B: 0, A: 255}

// Line colours of the two reference lines: the baseline black, the limit
// grey and dashed, so the only red on a trend plot is a regression.
var (
	colBaseline = color.RGBA{A: 255}
	colLimit    = color.RGBA{R: 110, G: 110, B: 110, A: 255}
	colTrend    = color.RGBA{R: 190, G: 190, B: 190, A: 255}
)

// verdictStyles are the marks of each verdict, in legend order.
var verdictStyles = []struct {
	verdict metrics.Verdict
	name    string
	glyph   draw.GlyphStyle
}{
	{metrics.VerdictRegression, "regression", draw.GlyphStyle{Color: colRed, Radius: vg.Points(4.5), Shape: draw.CircleGlyph{}}},
	{metrics.VerdictInconclusive, "inconclusive (the bounds straddle the limit)",
		draw.GlyphStyle{Color: colAmber, Radius: vg.Points(5), Shape: draw.PyramidGlyph{}}},
	{metrics.VerdictNoChange, "no significant change", draw.GlyphStyle{Color: colBlue, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}},
	{metrics.VerdictWithinTolerance, "within tolerance (a real change, smaller than it)",
		draw.GlyphStyle{Color: colBlue, Radius: vg.Points(4), Shape: draw.RingGlyph{}}},
	{metrics.VerdictImprovement, "improvement", draw.GlyphStyle{Color: colGreen, Radius: vg.Points(4), Shape: draw.BoxGlyph{}}},
}

// RenderTrends draws one plot per trend, named by TrendFile.
func RenderTrends(trends []Trend) ([]Image, error) {
	set := make([]namedPlot, len(trends))
	names := map[string]int{}
	for i := range trends {
		t := &trends[i]
		name := TrendFile(*t)
		if n := names[name]; n > 0 { // two names that sanitise alike
			name = strings.TrimSuffix(name, ".png") + fmt.Sprintf("-%d.png", n+1)
		}
		names[TrendFile(*t)]++
		set[i] = namedPlot{name, func() (*plot.Plot, error) { return trendPlot(t) }}
	}
	return renderAll(set)
}

// WriteTrendPlots writes RenderTrends' plots into dir (created if
// missing) and returns the paths written.
func WriteTrendPlots(dir string, trends []Trend) ([]string, error) {
	imgs, err := RenderTrends(trends)
	if err != nil {
		return nil, err
	}
	return WriteImages(dir, imgs)
}

// TrendFile is a trend plot's file name,
// "trend-<experiment>-<point>-<metric>.png" with every character but
// letters, digits, '-' and '_' made '_' (itl.p99 is itl_p99); a point of
// no experiment leaves its part out.
func TrendFile(t Trend) string {
	parts := []string{"trend"}
	if t.Experiment != "" {
		parts = append(parts, sanitize(t.Experiment))
	}
	parts = append(parts, sanitize(t.Point), sanitize(t.Metric))
	return strings.Join(parts, "-") + ".png"
}

// sanitize keeps a name safe in a file name on every system.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// trendPlot draws a trend: each run's value with its interval, coloured
// by verdict, against the baseline and the regression limit; nil for a
// trend of no run.
func trendPlot(t *Trend) (*plot.Plot, error) {
	if len(t.Runs) == 0 {
		return nil, nil
	}
	point := t.Point
	if t.Experiment != "" {
		point = t.Experiment + "/" + t.Point
	}
	subtitle := fmt.Sprintf("bars: one-sided %g%% bounds against baseline %s; tolerance %g%%\nan arrow: no bound on that side%s%s",
		100*t.Confidence, t.BaselineName, 100*t.Tolerance, newestDetects(t), levelsNote(t))
	title := t.Metric + " — " + point
	if t.Informational {
		title += " (informational: fails nothing)"
	}
	p := newPlot(title+"\n"+subtitle, "run (in the order the runs started)", yAxisName(t))
	p.Add(plotter.NewGrid())
	n := len(t.Runs)
	lo, hi := -0.5, float64(n)-0.5
	if err := addTrendLine(p, t); err != nil {
		return nil, err
	}
	if err := addLevels(p, t); err != nil {
		return nil, err
	}
	for _, ref := range []struct {
		y      float64
		name   string
		col    color.RGBA
		dashes []vg.Length
	}{
		{t.Baseline, "baseline " + t.BaselineName + ": " + withUnit(t.Baseline, t.Unit), colBaseline, nil},
		{t.Limit, fmt.Sprintf("regression limit (%s): %s", limitChange(t), withUnit(t.Limit, t.Unit)), colLimit,
			[]vg.Length{vg.Points(6), vg.Points(4)}},
	} {
		line, err := plotter.NewLine(plotter.XYs{{X: lo, Y: ref.y}, {X: hi, Y: ref.y}})
		if err != nil {
			return nil, fmt.Errorf("plots: trend: %w", err)
		}
		line.Color, line.Width, line.Dashes = ref.col, vg.Points(1.5), ref.dashes
		p.Add(line)
		p.Legend.Add(ref.name, line)
	}
	if err := addRuns(p, t); err != nil {
		return nil, err
	}
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = trendRange(t)
	runAxis(p, t.Runs)
	if err := markShifts(p, t); err != nil {
		return nil, err
	}
	return p, markUnmeasured(p, t)
}

// newestDetects is "; the newest run detects ≥ 8.2%": what the verdict
// the reader looks at first rests on; "" when the judge gave nothing.
func newestDetects(t *Trend) string {
	for i := len(t.Runs) - 1; i >= 0; i-- {
		if r := t.Runs[i]; r.Measured {
			if r.Detects == "" {
				return ""
			}
			return "; the newest run " + r.Detects
		}
	}
	return ""
}

// markUnmeasured writes "not measured" at the foot of the place of a run
// that has no such point (clear of the reference lines), so an empty slot
// is not read as a plotting fault.
func markUnmeasured(p *plot.Plot, t *Trend) error {
	var at plotter.XYLabels
	for i, r := range t.Runs {
		if !r.Measured {
			at.XYs = append(at.XYs, plotter.XY{X: float64(i), Y: p.Y.Min + 0.03*(p.Y.Max-p.Y.Min)})
			at.Labels = append(at.Labels, "not measured")
		}
	}
	if len(at.XYs) == 0 {
		return nil
	}
	lab, err := plotter.NewLabels(at)
	if err != nil {
		return fmt.Errorf("plots: trend: %w", err)
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i].Color, lab.TextStyle[i].XAlign, lab.TextStyle[i].YAlign = colLimit, draw.XCenter, draw.YBottom
	}
	p.Add(lab)
	return nil
}

// addTrendLine joins the measured runs' values in history order with a
// faint line, so the eye follows the trend across runs; a run without the
// point breaks the line rather than being bridged.
func addTrendLine(p *plot.Plot, t *Trend) error {
	var segment plotter.XYs
	flush := func() error {
		defer func() { segment = nil }()
		if len(segment) < 2 {
			return nil
		}
		line, err := plotter.NewLine(segment)
		if err != nil {
			return fmt.Errorf("plots: trend: %w", err)
		}
		line.Color, line.Width = colTrend, vg.Points(1)
		p.Add(line)
		return nil
	}
	for i, r := range t.Runs {
		if !r.Measured {
			if err := flush(); err != nil {
				return err
			}
			continue
		}
		segment = append(segment, plotter.XY{X: float64(i), Y: r.Value})
	}
	return flush()
}

// addRuns draws each verdict's runs as marks with their bars in the
// verdict's colour, one legend entry per verdict present.
func addRuns(p *plot.Plot, t *Trend) error {
	for _, vs := range verdictStyles {
		bars := trendBarsOf(t, vs.verdict)
		if len(bars) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(bars))
		for i, b := range bars {
			xys[i] = plotter.XY{X: b.X, Y: b.Value}
		}
		// Caps narrower than a run's slot, so neighbours' caps never join.
		slot := 6.5 * vg.Inch / vg.Length(max(1, len(t.Runs)))
		drawn := &trendBarPlotter{bars: bars, line: draw.LineStyle{Color: vs.glyph.Color, Width: vg.Points(2)},
			capWidth: min(vg.Points(10), slot/2)}
		s, err := plotter.NewScatter(xys)
		if err != nil {
			return fmt.Errorf("plots: trend: %w", err)
		}
		s.GlyphStyle = vs.glyph
		p.Add(drawn, s)
		p.Legend.Add(vs.name, s)
	}
	return nil
}

// trendBar is one run's bar: at X, from Low to High around its Value,
// each end capped where its bound exists and open (an arrowhead at the
// edge of the plot) where it does not.
type trendBar struct {
	X, Value, Low, High float64
	OpenLow, OpenHigh   bool
}

// trendBarsOf are the bars of t's measured runs of verdict v.
func trendBarsOf(t *Trend, v metrics.Verdict) []trendBar {
	var out []trendBar
	for i, run := range t.Runs {
		if !run.Measured || run.Verdict != v {
			continue
		}
		// A bar must hold its mark: the between-runs interval is of geometric
		// means, the value the arithmetic mean of the repeats.
		out = append(out, trendBar{X: float64(i), Value: run.Value, Low: math.Min(run.Low, run.Value),
			High: math.Max(run.High, run.Value), OpenLow: run.OpenLow, OpenHigh: run.OpenHigh})
	}
	return out
}

// trendBarPlotter draws trendBars: a plotter.YErrorBars whose ends can be
// open.
type trendBarPlotter struct {
	bars     []trendBar
	line     draw.LineStyle
	capWidth vg.Length
}

// Plot implements plot.Plotter.
func (b *trendBarPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, bar := range b.bars {
		x, low, high := trX(bar.X), trY(bar.Low), trY(bar.High)
		if bar.OpenLow {
			low = c.Min.Y
		}
		if bar.OpenHigh {
			high = c.Max.Y
		}
		c.StrokeLines(b.line, c.ClipLinesY([]vg.Point{{X: x, Y: low}, {X: x, Y: high}})...)
		b.end(&c, x, low, bar.OpenLow, -1)
		b.end(&c, x, high, bar.OpenHigh, 1)
	}
}

// end draws a cap at a bound, or where there is none an arrowhead
// pointing off the plot (up for dir 1, down for −1).
func (b *trendBarPlotter) end(c *draw.Canvas, x, y vg.Length, open bool, dir vg.Length) {
	h := b.capWidth / 2
	if open {
		c.StrokeLines(b.line, []vg.Point{{X: x - h, Y: y - dir*h}, {X: x, Y: y}, {X: x + h, Y: y - dir*h}})
		return
	}
	if c.Contains(vg.Point{X: x, Y: y}) {
		c.StrokeLine2(b.line, x-h, y, x+h, y)
	}
}

// trendRange frames the baseline, the limit and every run's interval
// with a margin, so no bar ends on the frame, and never below 0 when
// nothing is (no metric compared goes negative); a flat trend (an
// error_rate of 0 everywhere) gets a span of its own, 0–1% for zeros.
func trendRange(t *Trend) (lo, hi float64) {
	lo, hi = math.Min(t.Baseline, t.Limit), math.Max(t.Baseline, t.Limit)
	for _, r := range t.Runs {
		if r.Measured { // a missing bound is the value: the open bar runs off the frame
			lo, hi = math.Min(lo, math.Min(r.Low, r.Value)), math.Max(hi, math.Max(r.High, r.Value))
		}
	}
	floor := math.Inf(-1)
	if lo >= 0 {
		floor = 0
	}
	if hi <= lo {
		half := math.Max(0.5, math.Abs(hi)*0.1)
		lo, hi = lo-half, hi+half
		if lo < floor {
			lo, hi = floor, hi+floor-lo
		}
		return lo, hi
	}
	pad := 0.1 * (hi - lo)
	return math.Max(floor, lo-pad), hi + pad
}

// yAxisName is the metric with its unit.
func yAxisName(t *Trend) string {
	if t.Unit == "" {
		return t.Metric
	}
	return t.Metric + " (" + t.Unit + ")"
}

// limitChange is the limit as a change from the baseline: "+10%" for a
// lower-is-better metric, "−10%" for a throughput.
func limitChange(t *Trend) string {
	if t.Direction == metrics.HigherIsBetter {
		return fmt.Sprintf("−%g%%", 100*t.Tolerance)
	}
	return fmt.Sprintf("+%g%%", 100*t.Tolerance)
}

// withUnit prints a value with three significant digits or more and its
// unit.
func withUnit(v float64, unit string) string {
	s := fmt.Sprintf("%.2f", v)
	if math.Abs(v) >= 1000 {
		s = fmt.Sprintf("%.0f", v)
	}
	switch unit {
	case "":
		return s
	case "%":
		return s + "%"
	}
	return s + " " + unit
}
