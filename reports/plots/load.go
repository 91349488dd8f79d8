package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmbench/llmbench/metrics"
)

// goodputVsLoad puts request goodput next to request throughput along the
// load: the gap between them is the traffic served outside its SLOs, and
// goodput's peak is the load worth running at. Skipped when no point
// measured goodput.
func goodputVsLoad(d *sweepData) (*plot.Plot, error) {
	var good, thr plotter.XYs
	for _, p := range d.pts {
		s := &p.pr.Outcome.Summary
		v, _ := metrics.RequestThroughput.Value(s)
		thr = append(thr, plotter.XY{X: p.load, Y: v})
		if v, ok := metrics.RequestGoodput.Value(s); ok {
			good = append(good, plotter.XY{X: p.load, Y: v})
		}
	}
	if len(good) == 0 {
		return nil, nil
	}
	p := newPlot("Request goodput vs load\n"+d.param+" sweep", loadAxis(d.param), metrics.RequestThroughput.Unit)
	series := []struct {
		xys   plotter.XYs
		name  string
		col   plotColor
		shape draw.GlyphDrawer
	}{{thr, "request throughput", colBlue, draw.CircleGlyph{}}, {good, "request goodput (within SLOs)", colGreen, draw.BoxGlyph{}}}
	for _, s := range series {
		line, pts, err := plotter.NewLinePoints(s.xys)
		if err != nil {
			return nil, fmt.Errorf("plots: goodput: %w", err)
		}
		line.Color, line.Width = s.col, vg.Points(1.5)
		pts.GlyphStyle = draw.GlyphStyle{Color: s.col, Radius: vg.Points(3), Shape: s.shape}
		p.Add(line, pts)
		p.Legend.Add(s.name, line, pts)
	}
	scaleLoadAxis(&p.X, d.param, xs(thr))
	fromZero(&p.Y)
	return p, nil
}

// repeatXYs holds each point's mean throughput over its repeats and the
// half-widths of its 95% confidence interval, as gonum's error bars want.
type repeatXYs struct {
	plotter.XYs
	low, high []float64
}

func (r repeatXYs) YError(i int) (float64, float64) { return r.low[i], r.high[i] }

// repeatsVsLoad is output token throughput along the load with the 95%
// confidence interval of the mean of its repeats as error bars, so a
// reader sees which differences between loads are more than noise.
// Skipped unless some point ran more than once.
func repeatsVsLoad(d *sweepData) (*plot.Plot, error) {
	var r repeatXYs
	repeated := false
	for _, p := range d.pts {
		st, ok := p.pr.RepeatStats[metrics.OutputTokenThroughput.Name]
		if !ok || st.N == 0 {
			continue
		}
		lo, hi := st.Mean-st.CILow, st.CIHigh-st.Mean
		if st.N < 2 || math.IsNaN(lo) || math.IsNaN(hi) {
			lo, hi = 0, 0
		}
		repeated = repeated || st.N > 1
		r.XYs = append(r.XYs, plotter.XY{X: p.load, Y: st.Mean})
		r.low, r.high = append(r.low, lo), append(r.high, hi)
	}
	if !repeated {
		return nil, nil
	}
	p := newPlot("Output token throughput vs load, mean of repeats with 95% CI\n"+d.param+" sweep",
		loadAxis(d.param), axisLabel("output token throughput", metrics.OutputTokenThroughput))
	line, pts, err := plotter.NewLinePoints(r.XYs)
	if err != nil {
		return nil, fmt.Errorf("plots: repeats: %w", err)
	}
	bars, err := plotter.NewYErrorBars(r)
	if err != nil {
		return nil, fmt.Errorf("plots: repeats: %w", err)
	}
	line.Color, pts.Color, bars.Color, bars.Width = colBlue, colBlue, colRed, vg.Points(1.5)
	bars.CapWidth = vg.Points(8)
	p.Add(line, pts, bars)
	p.Legend.Add("mean of repeats", line, pts)
	// Error bars draw no legend thumbnail; a line in their style stands in.
	key := &plotter.Line{LineStyle: bars.LineStyle}
	p.Legend.Add("95% CI (Student's t)", key)
	scaleLoadAxis(&p.X, d.param, xs(r.XYs))
	fromZero(&p.Y)
	return p, nil
}
