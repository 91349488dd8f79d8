package plots

import (
	"fmt"
	"maps"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmbench/llmbench/metrics"
)

// ttftVsTurn shows what resending a conversation's history costs: TTFT of
// every request by its turn index, with the median and p90 per turn. A
// rising median is prefill growing with the history; a flat one is a
// server whose prefix cache keeps the history. Drawn for conversation
// points only.
func ttftVsTurn(d *PointData, title string) (*plot.Plot, error) {
	if !d.turns {
		return nil, nil
	}
	p := newPlot(withTitle("Time to first token by conversation turn", title), "turn", axisLabel("TTFT", metrics.TTFT))
	byTurn := map[int][]float64{}
	raw := make(plotter.XYs, 0, len(d.ttft))
	step := stride(len(d.ttft))
	for i, v := range d.ttft {
		t := int(d.turn[i])
		if t == 0 {
			continue
		}
		byTurn[t] = append(byTurn[t], v)
		if i%step == 0 {
			raw = append(raw, plotter.XY{X: float64(t), Y: v})
		}
	}
	var med, p90 plotter.XYs
	for _, t := range slices.Sorted(maps.Keys(byTurn)) {
		s := sortedCopy(byTurn[t])
		med = append(med, plotter.XY{X: float64(t), Y: percentile(s, 50)})
		p90 = append(p90, plotter.XY{X: float64(t), Y: percentile(s, 90)})
	}
	s, err := plotter.NewScatter(raw)
	if err != nil {
		return nil, fmt.Errorf("plots: ttft vs turn: %w", err)
	}
	s.GlyphStyle = draw.GlyphStyle{Color: colFaint, Radius: vg.Points(1.5), Shape: draw.CircleGlyph{}}
	p.Add(s)
	p.Legend.Add(sampleNote(len(raw), len(d.ttft)), s)
	for _, l := range []struct {
		xys   plotter.XYs
		name  string
		color plotColor
	}{{med, "median", colBlue}, {p90, "p90", colRed}} {
		line, points, err := plotter.NewLinePoints(l.xys)
		if err != nil {
			return nil, fmt.Errorf("plots: ttft vs turn: %w", err)
		}
		line.Color, points.Color = l.color, l.color
		line.Width = vg.Points(1.5)
		p.Add(line, points)
		p.Legend.Add(l.name, line, points)
	}
	integerAxis(&p.X)
	return p, nil
}
