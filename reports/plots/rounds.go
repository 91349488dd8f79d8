package plots

import (
	"fmt"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Rounds is one metric of an interleaved A/B point, round by round on
// each side: what a rounds plot draws. A reader sees at once whether the
// sides moved together (drift, which the paired judgment cancels) or
// apart (a change). Values are in report units (ms for times).
type Rounds struct {
	// Experiment and Point name the point; Metric is named as gates name
	// it ("itl.p50"), Unit its report unit.
	Experiment, Point, Metric, Unit string
	// A and B are each side's value in its rounds, in round order (round
	// i of A paired with round i of B).
	A, B []float64
	// Verdict is the paired judgment in words ("regression: +5.1% [≥
	// +3.2%]"), shown under the title; "" for none.
	Verdict string
}

// RoundsFile is a rounds plot's file name,
// "rounds-<experiment>-<point>-<metric>.png", sanitised as TrendFile.
func RoundsFile(r Rounds) string {
	return strings.Join([]string{"rounds", sanitize(r.Experiment), sanitize(r.Point), sanitize(r.Metric)}, "-") + ".png"
}

// WriteRoundsPlots draws one plot per metric into dir (created if
// missing) and returns the paths written.
func WriteRoundsPlots(dir string, rounds []Rounds) ([]string, error) {
	set := make([]namedPlot, len(rounds))
	for i := range rounds {
		r := &rounds[i]
		set[i] = namedPlot{RoundsFile(*r), func() (*plot.Plot, error) { return roundsPlot(r) }}
	}
	imgs, err := renderAll(set)
	if err != nil {
		return nil, err
	}
	return WriteImages(dir, imgs)
}

// roundsPlot draws side A (the baseline, grey squares) and side B (the
// candidate, blue circles) over the round index; nil when a side has no
// round.
func roundsPlot(r *Rounds) (*plot.Plot, error) {
	if len(r.A) == 0 || len(r.B) == 0 {
		return nil, nil
	}
	title := fmt.Sprintf("%s per A/B round\n%s / %s", r.Metric, r.Experiment, r.Point)
	if r.Verdict != "" {
		title += "\n" + r.Verdict
	}
	p := newPlot(title, "round (A and B of one round are paired)", fmt.Sprintf("%s (%s)", r.Metric, r.Unit))
	var all []float64
	for _, side := range []struct {
		name   string
		values []float64
		glyph  draw.GlyphStyle
	}{
		{"A: baseline (ab=)", r.A, draw.GlyphStyle{Color: colGrey, Radius: vg.Points(4), Shape: draw.BoxGlyph{}}},
		{"B: candidate (endpoint=)", r.B, draw.GlyphStyle{Color: colBlue, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}},
	} {
		xys := make(plotter.XYs, len(side.values))
		for i, v := range side.values {
			xys[i] = plotter.XY{X: float64(i + 1), Y: v}
		}
		all = append(all, side.values...)
		line, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("plots: rounds: %w", err)
		}
		line.Color, pts.GlyphStyle = side.glyph.Color, side.glyph
		p.Add(line, pts)
		p.Legend.Add(side.name, line, pts)
	}
	n := max(len(r.A), len(r.B))
	p.X.Min, p.X.Max = 0.5, float64(n)+0.5
	ticks := make([]plot.Tick, n)
	for i := range ticks {
		ticks[i] = plot.Tick{Value: float64(i + 1), Label: fmt.Sprint(i + 1)}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	scaleAxis(&p.Y, all)
	return p, nil
}
