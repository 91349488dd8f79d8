package plots

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Stacked figures put several quantities over one X axis (load, or time)
// one above the other, so the eye runs down a vertical line from one to
// the next: at this load throughput stops growing, and this is what a
// token then costs. Each panel is panelHeight tall; the top one carries
// the figure's title and legend in panelTitleRoom more.
const (
	panelHeight    = 2.6 * vg.Inch
	panelTitleRoom = 0.7 * vg.Inch
	panelGap       = 0.15 * vg.Inch
)

// panelsHeight is the height of a figure of n stacked panels.
func panelsHeight(n int) vg.Length {
	return vg.Length(n)*panelHeight + panelTitleRoom + vg.Length(n-1)*panelGap
}

// encodePanels draws panels stacked top to bottom in one PNG of Width by
// panelsHeight, their data areas aligned so their X axes line up.
func encodePanels(name string, panels []*plot.Plot) (Image, error) {
	if len(panels) == 0 {
		return Image{}, fmt.Errorf("plots: %s: no panel", name)
	}
	rows := make([][]*plot.Plot, len(panels))
	for i, p := range panels {
		// gonum reserves the title's padding, where legendAbove puts the
		// legend, only for a title with text: a lower panel's legend
		// would land on the X labels of the panel above.
		if p.Title.Text == "" && p.Legend.Rectangle(draw.Canvas{}).Size().Y > 0 {
			p.Title.Text = " "
		}
		legendAbove(p)
		rows[i] = []*plot.Plot{p}
	}
	c := vgimg.NewWith(vgimg.UseWH(Width, panelsHeight(len(panels))), vgimg.UseDPI(vgimg.DefaultDPI))
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadY: panelGap}
	for i, tc := range plot.Align(rows, tiles, draw.New(c)) {
		panels[i].Draw(tc[0])
	}
	var b bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
		return Image{}, fmt.Errorf("plots: %s: %w", name, err)
	}
	return Image{Name: name, PNG: b.Bytes()}, nil
}
