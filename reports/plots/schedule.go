package plots

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmbench/llmbench/metrics"
)

// keepSchedule stores, at sample slot i, an open-loop request's planned
// send instant and its TTFT measured from it; a closed-loop request (no
// plan) keeps nothing.
func (d *PointData) keepSchedule(i int, r *metrics.Record, m metrics.RequestMetrics) {
	if !m.HasFromSchedule {
		return
	}
	for len(d.planned) <= i {
		d.planned, d.fromSchedule = append(d.planned, 0), append(d.fromSchedule, 0)
	}
	d.planned[i], d.fromSchedule[i] = float64(r.Scheduled), metrics.TTFTFromSchedule.Display(float64(m.TTFTFromSchedule))
}

// ttftFromSchedule draws both TTFTs of each open-loop request against its
// planned send time: from the actual send (what GenAI-Perf reports) and
// from the planned one. When the client held requests back (a cap, a slow
// client) the second rises while the first stays flat — the coordinated
// omission a send-time measurement hides. Skipped in a closed loop.
func ttftFromSchedule(d *PointData, title string) (*plot.Plot, error) {
	if len(d.planned) == 0 || len(d.planned) != len(d.ttft) {
		return nil, nil
	}
	start := slices.Min(d.planned)
	p := newPlot(withTitle("Time to first token from the send and from the schedule", title),
		"planned send time (s from the first)", axisLabel("TTFT", metrics.TTFT))
	step := stride(len(d.ttft))
	actual, planned := make(plotter.XYs, 0, len(d.ttft)/step+1), make(plotter.XYs, 0, len(d.ttft)/step+1)
	for i := 0; i < len(d.ttft); i += step {
		x := (d.planned[i] - start) / 1e9
		actual = append(actual, plotter.XY{X: x, Y: d.ttft[i]})
		planned = append(planned, plotter.XY{X: x, Y: d.fromSchedule[i]})
	}
	for _, series := range []struct {
		xys   plotter.XYs
		label string
		style draw.GlyphStyle
	}{
		{planned, "from the planned send (ttft_from_schedule)", draw.GlyphStyle{Color: colRed, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}},
		{actual, "from the actual send (ttft)", draw.GlyphStyle{Color: colBlue, Radius: vg.Points(2), Shape: draw.TriangleGlyph{}}},
	} {
		s, err := plotter.NewScatter(series.xys)
		if err != nil {
			return nil, fmt.Errorf("plots: ttft from schedule: %w", err)
		}
		s.GlyphStyle = series.style
		p.Add(s)
		p.Legend.Add(series.label, s)
	}
	p.Legend.Top = true
	return p, nil
}
