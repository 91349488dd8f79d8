package plots

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmbench/llmbench/metrics"
)

// ttftVsISL shows whether TTFT grows with the prompt (prefill cost) or
// not (queueing dominates). Skipped when no request has an ISL.
func ttftVsISL(d *PointData, title string) (*plot.Plot, error) {
	if !d.tokens {
		return nil, nil
	}
	p := newPlot(withTitle("Time to first token vs input sequence length", title),
		axisLabel("input sequence length", metrics.ISL), axisLabel("TTFT", metrics.TTFT))
	step := stride(len(d.ttft))
	xys := make(plotter.XYs, 0, len(d.ttft)/step+1)
	for i := 0; i < len(d.ttft); i += step {
		xys = append(xys, plotter.XY{X: d.isl[i], Y: d.ttft[i]})
	}
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, fmt.Errorf("plots: ttft vs isl: %w", err)
	}
	s.GlyphStyle = draw.GlyphStyle{Color: colBlue, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
	p.Add(s)
	p.Legend.Add(sampleNote(len(xys), len(d.ttft)), s)
	integerAxis(&p.X)
	return p, nil
}

// sampleNote says how many points a scatter shows, and of how many when
// it was sampled, so a thinned plot is not mistaken for a small run.
func sampleNote(shown, total int) string {
	if shown == total {
		return fmt.Sprintf("requests (n = %d)", total)
	}
	return fmt.Sprintf("requests (%d of %d shown)", shown, total)
}

// itlVsPosition is the gap before each output chunk by its position: a
// rising line is a growing KV cache, spikes at fixed positions are other
// requests' prefills. With thousands of requests a raw scatter is a
// solid band, so the median and p90 per position bin are drawn over a
// faint sample of the raw gaps. Skipped without chunk gaps (non-streaming
// responses have one chunk).
func itlVsPosition(d *PointData, title string) (*plot.Plot, error) {
	if len(d.gaps) == 0 {
		return nil, nil
	}
	p := newPlot(withTitle("Token-to-token latency vs output token position", title),
		"output chunk position", axisLabel("chunk gap", metrics.ChunkGap))
	raw, err := rawGaps(d.gaps)
	if err != nil {
		return nil, err
	}
	p.Add(raw)
	med, p90 := binnedGaps(d.gaps)
	for _, l := range []struct {
		xys  plotter.XYs
		name string
		col  plotColor
	}{{med, "median", colGreen}, {p90, "p90", colRed}} {
		line, err := plotter.NewLine(l.xys)
		if err != nil {
			return nil, fmt.Errorf("plots: itl vs position: %w", err)
		}
		line.Color, line.Width = l.col, vg.Points(2)
		p.Add(line)
		p.Legend.Add(l.name+" per position", line)
	}
	p.Legend.Add("chunk gaps (sample)", raw)
	integerAxis(&p.X)
	return p, nil
}

// rawGaps is the faint scatter of individual gaps, sampled.
func rawGaps(gaps [][]float64) (*plotter.Scatter, error) {
	total := 0
	for _, g := range gaps {
		total += len(g)
	}
	step := stride(total)
	var xys plotter.XYs
	n := 0
	for k, g := range gaps {
		for _, v := range g {
			if n%step == 0 {
				xys = append(xys, plotter.XY{X: float64(k + 2), Y: v})
			}
			n++
		}
	}
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, fmt.Errorf("plots: itl vs position: %w", err)
	}
	s.GlyphStyle = draw.GlyphStyle{Color: colFaint, Radius: vg.Points(1.5), Shape: draw.CircleGlyph{}}
	return s, nil
}

// binnedGaps is the median and p90 gap per bin of positions: one bin per
// position up to 200 positions, else 100 equal bins, so the lines stay
// smooth enough to read on a long output. Each point sits at its bin's
// middle position; position k+2 is the chunk the k-th gap ended at.
func binnedGaps(gaps [][]float64) (med, p90 plotter.XYs) {
	width := max(1, (len(gaps)+99)/100)
	if len(gaps) <= 200 {
		width = 1
	}
	for lo := 0; lo < len(gaps); lo += width {
		hi := min(len(gaps), lo+width)
		var bin []float64
		for _, g := range gaps[lo:hi] {
			bin = append(bin, g...)
		}
		s := sortedCopy(bin)
		x := float64(lo+hi-1)/2 + 2
		med = append(med, plotter.XY{X: x, Y: percentile(s, 50)})
		p90 = append(p90, plotter.XY{X: x, Y: percentile(s, 90)})
	}
	return med, p90
}
