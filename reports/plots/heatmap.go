package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmbench/llmbench/metrics"
)

// heatBins is the grid size of the ISL×OSL heat map per axis.
const heatBins = 30

// minHeatCells is the fewest cells an axis of the heat map spans. A
// fixed-length dataset has one ISL or one OSL, and gonum stretches a lone
// cell over the whole axis (one blue rectangle from 256.0 to 257.0);
// padded to this many cells it is a block around its value, with ticks on
// either side to read the value from and room to print its count.
const minHeatCells = 11

// countGrid is a 2-D histogram as gonum's GridXYZ: cell (c, r) counts the
// requests whose ISL falls in column c and OSL in row r.
type countGrid struct {
	x0, dx, y0, dy float64
	counts         [][]float64 // [col][row]
}

func (g *countGrid) Dims() (c, r int)   { return len(g.counts), len(g.counts[0]) }
func (g *countGrid) Z(c, r int) float64 { return g.counts[c][r] }
func (g *countGrid) X(c int) float64    { return g.x0 + (float64(c)+0.5)*g.dx }
func (g *countGrid) Y(r int) float64    { return g.y0 + (float64(r)+0.5)*g.dy }

// newCountGrid bins (xs[i], ys[i]) into at most heatBins×heatBins cells
// of whole-token width, so a fixed-length dataset gives one narrow column
// instead of a stretched smear.
func newCountGrid(xs, ys []float64) *countGrid {
	g := &countGrid{}
	var nx, ny int
	g.x0, g.dx, nx = axisBins(xs)
	g.y0, g.dy, ny = axisBins(ys)
	g.counts = make([][]float64, nx)
	for c := range g.counts {
		g.counts[c] = make([]float64, ny)
	}
	for i := range xs {
		c := min(nx-1, int((xs[i]-g.x0)/g.dx))
		r := min(ny-1, int((ys[i]-g.y0)/g.dy))
		g.counts[c][r]++
	}
	return g
}

// axisBins picks the origin, width and number of bins covering vs. Bins
// start half a token below the shortest length, so a one-token bin is
// centred on its length and its tick sits under its middle.
func axisBins(vs []float64) (origin, width float64, n int) {
	lo, hi := vs[0], vs[0]
	for _, v := range vs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	width = math.Max(1, math.Ceil((hi-lo+1)/heatBins))
	n = int(math.Floor((hi-lo)/width)) + 1
	return lo - 0.5, width, n
}

// top is the largest count in the grid.
func (g *countGrid) top() float64 {
	top := 0.0
	for _, col := range g.counts {
		for _, v := range col {
			top = math.Max(top, v)
		}
	}
	return top
}

// islOSLHeatMap shows which input/output lengths the point actually ran,
// which is what a synthetic length distribution should be checked
// against. Empty cells are left white. The count scale is in the title: a
// legend would sit on the cells. A grid of few cells (fixed or narrow
// lengths) has each count printed in its cell.
func islOSLHeatMap(d *PointData, title string) (*plot.Plot, error) {
	if !d.tokens {
		return nil, nil
	}
	g := newCountGrid(d.isl, d.osl)
	top := g.top()
	what := fmt.Sprintf("Input vs output sequence length (requests per cell: light 1 to dark %.0f)", top)
	p := newPlot(withTitle(what, title), axisLabel("input sequence length", metrics.ISL), axisLabel("output sequence length", metrics.OSL))
	h := plotter.NewHeatMap(g, blues(9))
	h.Min, h.Max = 1, math.Max(top, 1.0001)
	h.Underflow = color.White
	p.Add(h)
	integerAxis(&p.X)
	integerAxis(&p.Y)
	nx, ny := g.Dims()
	padHeatAxis(&p.X, g.x0, g.dx, nx)
	padHeatAxis(&p.Y, g.y0, g.dy, ny)
	if nx <= minHeatCells && ny <= minHeatCells {
		counts, err := cellCounts(g, top)
		if err != nil {
			return nil, err
		}
		p.Add(counts)
	}
	return p, nil
}

// padHeatAxis widens an axis spanning fewer than minHeatCells cells to
// that many around their middle, never below zero tokens.
func padHeatAxis(a *plot.Axis, origin, width float64, n int) {
	if n >= minHeatCells {
		return
	}
	mid, half := origin+float64(n)*width/2, float64(minHeatCells)*width/2
	a.Min, a.Max = math.Max(mid-half, -width/2), mid+half
}

// cellCounts prints each non-empty cell's count in its middle, white on
// the dark half of the scale, so the number of requests at a length is
// read, not guessed from a shade.
func cellCounts(g *countGrid, top float64) (*plotter.Labels, error) {
	var cells plotter.XYLabels
	var dark []bool
	nx, ny := g.Dims()
	for c := range nx {
		for r := range ny {
			if v := g.Z(c, r); v > 0 {
				cells.XYs = append(cells.XYs, plotter.XY{X: g.X(c), Y: g.Y(r)})
				cells.Labels = append(cells.Labels, fmt.Sprintf("%.0f", v))
				dark = append(dark, v > top/2)
			}
		}
	}
	lab, err := plotter.NewLabels(cells)
	if err != nil {
		return nil, fmt.Errorf("plots: heat map: %w", err)
	}
	for i := range lab.TextStyle {
		st := &lab.TextStyle[i]
		st.XAlign, st.YAlign, st.Color = draw.XCenter, draw.YCenter, color.Black
		if dark[i] {
			st.Color = color.White
		}
	}
	return lab, nil
}

// sequential is a palette of colours in order.
type sequential []color.Color

func (s sequential) Colors() []color.Color { return s }

// blues is a light-to-dark blue scale of n colours: counts are one-sided,
// so a sequential scale reads as "more" where a diverging one suggests a
// meaningful middle.
func blues(n int) palette.Palette {
	lo, hi := [3]float64{198, 219, 239}, [3]float64{8, 48, 107}
	s := make(sequential, n)
	for i := range s {
		f := float64(i) / float64(n-1)
		c := func(k int) uint8 { return uint8(lo[k] + f*(hi[k]-lo[k])) }
		s[i] = color.RGBA{R: c(0), G: c(1), B: c(2), A: 255}
	}
	return s
}
