package plots

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// colLevel is the step line of a history's levels: Okabe–Ito's reddish
// purple, apart from every verdict's colour and the grey reference lines.
var colLevel = color.RGBA{R: 204, G: 121, B: 167, A: 255}

// levelsNote is the subtitle's line on the step line; "" without one.
func levelsNote(t *Trend) string {
	if len(t.Levels) == 0 {
		return ""
	}
	return "\nstep line: the level between change points (" + t.ChangeMethod + ")"
}

// addLevels draws the levels as one step line: flat across each level's
// runs, stepping half way between the last run of a level and the first
// of the next, so the step stands where the change point is.
func addLevels(p *plot.Plot, t *Trend) error {
	if len(t.Levels) == 0 {
		return nil
	}
	var xys plotter.XYs
	for _, l := range t.Levels {
		xys = append(xys, plotter.XY{X: float64(l.From) - 0.5, Y: l.Value}, plotter.XY{X: float64(l.To) + 0.5, Y: l.Value})
	}
	line, err := plotter.NewLine(xys)
	if err != nil {
		return fmt.Errorf("plots: trend levels: %w", err)
	}
	line.Color, line.Width = colLevel, vg.Points(2.5)
	p.Add(line)
	name := "level (no change point)"
	if len(t.Levels) > 1 {
		name = "level: 1 change point, marked by a diamond"
		if len(t.Levels) > 2 {
			name = fmt.Sprintf("level: %d change points, each marked by a diamond", len(t.Levels)-1)
		}
	}
	p.Legend.Add(name, line)
	return nil
}

// markShifts marks the first run of each new level: a diamond at the
// top of the plot above it, with the shift's size and significance, so
// the run to look at is named on the plot itself.
func markShifts(p *plot.Plot, t *Trend) error {
	var at plotter.XYLabels
	var marks plotter.XYs
	top := p.Y.Max - 0.04*(p.Y.Max-p.Y.Min)
	for _, l := range t.Levels {
		if l.Shift == "" {
			continue
		}
		marks = append(marks, plotter.XY{X: float64(l.From), Y: top})
		at.XYs = append(at.XYs, plotter.XY{X: float64(l.From), Y: top})
		at.Labels = append(at.Labels, l.Shift)
	}
	if len(marks) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(marks)
	if err != nil {
		return fmt.Errorf("plots: trend shifts: %w", err)
	}
	s.GlyphStyle = draw.GlyphStyle{Color: colLevel, Radius: vg.Points(5), Shape: diamondGlyph{}}
	lab, err := plotter.NewLabels(at)
	if err != nil {
		return fmt.Errorf("plots: trend shifts: %w", err)
	}
	for i, xy := range at.XYs {
		// Right of the diamond, or left of it in the right half, so the text stays on the plot.
		lab.TextStyle[i].Color, lab.TextStyle[i].XAlign, lab.TextStyle[i].YAlign = colLevel, draw.XLeft, draw.YCenter
		if xy.X > float64(len(t.Runs)-1)/2 {
			lab.TextStyle[i].XAlign = draw.XRight
		}
	}
	p.Add(s, &shiftLabels{lab})
	return nil
}

// shiftLabels places each label beside its diamond: right of it, or left
// of it when the label is right-aligned.
type shiftLabels struct{ *plotter.Labels }

// Plot implements plot.Plotter.
func (l *shiftLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, xy := range l.XYs {
		gap := vg.Points(8)
		if l.TextStyle[i].XAlign == draw.XRight {
			gap = -gap
		}
		c.FillText(l.TextStyle[i], vg.Point{X: trX(xy.X) + gap, Y: trY(xy.Y)}, l.Labels.Labels[i])
	}
}

// diamondGlyph is a filled diamond: the change point's mark.
type diamondGlyph struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetColor(sty.Color)
	r := sty.Radius
	var path vg.Path
	path.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	path.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	path.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	path.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	path.Close()
	c.Fill(path)
}
