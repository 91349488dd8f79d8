package plots

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmbench/llmbench/metrics"
)

// curveTTFT is the latency–throughput curve on p99 TTFT: how much output
// throughput each load buys and what it costs the slowest first tokens.
func curveTTFT(d *sweepData) (*plot.Plot, error) {
	return curve(d, metrics.TTFT, "p99 time to first token", "p99 TTFT")
}

// curveITL is the same curve on p99 inter-token latency (streaming only).
func curveITL(d *sweepData) (*plot.Plot, error) {
	return curve(d, metrics.ITL, "p99 inter-token latency", "p99 ITL")
}

// curve draws throughput against a latency p99 along the sweep, each point
// labelled with its load, the knee ringed and the saturation point marked.
// Skipped when fewer than two points measured the latency; what names
// the latency on the x axis, short in the title.
func curve(d *sweepData, latency *metrics.Metric, what, short string) (*plot.Plot, error) {
	xys, labels, at := curvePoints(d, latency)
	if len(xys) < 2 {
		return nil, nil
	}
	p := newPlot("Output token throughput vs "+short+"\n"+d.param+" sweep", axisLabel(what, latency),
		axisLabel("output token throughput", metrics.OutputTokenThroughput))
	line, pts, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil, fmt.Errorf("plots: curve: %w", err)
	}
	line.Color, pts.Color = colBlue, colBlue
	lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return nil, fmt.Errorf("plots: curve: %w", err)
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i].XAlign, lab.Offset = draw.XLeft, vg.Point{X: vg.Points(5), Y: vg.Points(3)}
	}
	p.Add(line, pts, lab)
	p.Legend.Add("load point (line in increasing "+d.param+")", line, pts)
	scaleAxis(&p.X, xs(xys))
	fromZero(&p.Y)
	return p, markPoints(p, d, at)
}

// curvePoints is the curve in increasing load, the order the line joins
// the points in: latency need not grow with load (a p99 can dip from one
// load to the next), and a line sorted by latency would zigzag between
// loads instead of tracing the sweep. at maps an index of d.pts to its
// place on the plot.
func curvePoints(d *sweepData, latency *metrics.Metric) (plotter.XYs, []string, map[int]plotter.XY) {
	var xys plotter.XYs
	var labels []string
	at := map[int]plotter.XY{}
	for i, p := range d.pts {
		s := &p.pr.Outcome.Summary
		dist := latency.Distribution(s)
		if dist == nil || dist.Count == 0 {
			continue
		}
		throughput, _ := metrics.OutputTokenThroughput.Value(s)
		xy := plotter.XY{X: latency.Display(dist.P99), Y: throughput}
		xys, labels, at[i] = append(xys, xy), append(labels, loadLabel(d.param, p.load)), xy
	}
	return xys, labels, at
}

// markPoints rings the knee and marks the saturation point, each with a
// legend entry naming its load, when the point is on the plot.
func markPoints(p *plot.Plot, d *sweepData, at map[int]plotter.XY) error {
	return markLoads(p, d, at, true)
}

// markLoads is markPoints with the legend entries optional: the lower
// panels of a stacked figure carry the marks, the top panel's legend
// names them once.
func markLoads(p *plot.Plot, d *sweepData, at map[int]plotter.XY, legend bool) error {
	marks := []struct {
		i     int
		name  string
		glyph draw.GlyphStyle
	}{
		{d.knee, d.kneeName(),
			draw.GlyphStyle{Color: colGreen, Radius: vg.Points(9), Shape: draw.RingGlyph{}}},
		{d.saturation, "saturation",
			draw.GlyphStyle{Color: colRed, Radius: vg.Points(7), Shape: draw.TriangleGlyph{}}},
	}
	for _, m := range marks {
		xy, ok := at[m.i]
		if !ok {
			continue
		}
		s, err := plotter.NewScatter(plotter.XYs{xy})
		if err != nil {
			return fmt.Errorf("plots: curve: %w", err)
		}
		s.GlyphStyle = m.glyph
		p.Add(s)
		if legend {
			p.Legend.Add(m.name+": "+loadLabel(d.param, d.pts[m.i].load), s)
		}
	}
	return nil
}

// kneeName names the knee mark after its gate; there is no knee (d.knee
// is -1) without one.
func (d *sweepData) kneeName() string {
	if d.kneeGate == nil {
		return ""
	}
	return "knee (" + d.kneeGate.String() + ")"
}

// xs returns the X values of xys.
func xs(xys plotter.XYs) []float64 {
	out := make([]float64, len(xys))
	for i, xy := range xys {
		out[i] = xy.X
	}
	return out
}
