package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/llmbench/llmbench/metrics"
)

// ttftHist is the TTFT distribution. GenAI-Perf draws a box plot; a
// histogram with p50 and p99 marked shows the same quantiles plus the
// shape (a second mode from queueing is what people look for).
func ttftHist(d *PointData, title string) (*plot.Plot, error) {
	return histogram(d.ttft, withTitle("Time to first token", title), axisLabel("TTFT", metrics.TTFT))
}

// latencyHist is the request latency distribution, drawn like TTFT's.
func latencyHist(d *PointData, title string) (*plot.Plot, error) {
	return histogram(d.latency, withTitle("Request latency", title), axisLabel("request latency", metrics.RequestLatency))
}

// histogram draws vs in bins with vertical p50 and p99 lines whose values
// are in the legend, so the plot can be read without the table.
func histogram(vs []float64, title, xlabel string) (*plot.Plot, error) {
	p := newPlot(title, xlabel, "requests")
	h, err := plotter.NewHist(plotter.Values(vs), binCount(len(vs)))
	if err != nil {
		return nil, fmt.Errorf("plots: histogram: %w", err)
	}
	h.FillColor = colFaint
	h.LineStyle.Color = colBlue
	p.Add(h)
	top := 0.0
	for _, b := range h.Bins {
		top = math.Max(top, b.Weight)
	}
	s := sortedCopy(vs)
	marks := []struct {
		q    float64
		col  color.Color
		dash []vg.Length
	}{{50, colGreen, nil}, {99, colRed, []vg.Length{vg.Points(6), vg.Points(3)}}}
	for _, m := range marks {
		v := percentile(s, m.q)
		l, err := plotter.NewLine(plotter.XYs{{X: v, Y: 0}, {X: v, Y: top}})
		if err != nil {
			return nil, fmt.Errorf("plots: histogram: %w", err)
		}
		l.Color, l.Width, l.Dashes = m.col, vg.Points(2), m.dash
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("p%g = %.1f ms", m.q, v), l)
	}
	p.Legend.Add(fmt.Sprintf("n = %d", len(vs)))
	integerAxis(&p.Y)
	return p, nil
}

// binCount is the square-root rule held between 10 and 60 bins: few
// requests still get a shape, many do not get hair-thin bars.
func binCount(n int) int {
	return min(60, max(10, int(math.Sqrt(float64(n)))))
}
