package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmbench/llmbench/metrics"
)

// Width and Height are every plot's size: 8×5 in at 96 dpi (768×480 px),
// wide enough for load labels and small enough to sit in an HTML report.
const (
	Width  = 8 * vg.Inch
	Height = 5 * vg.Inch
)

// maxScatter bounds the points a scatter draws: gonum draws every glyph,
// so a run of a million requests would take minutes and give an ink blot.
// A deterministic stride sample keeps the shape and the plot reproducible.
const maxScatter = 20000

// Colours shared across plots so a marker means the same thing everywhere.
var (
	colBlue  = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	colGreen = color.RGBA{R: 44, G: 160, B: 44, A: 255}
	colRed   = color.RGBA{R: 214, G: 39, B: 40, A: 255}
	// colOrange is energy and power; colGrey a reference (a limit, the
	// window's edges), not data.
	colOrange = color.RGBA{R: 230, G: 120, B: 20, A: 255}
	colGrey   = color.RGBA{R: 110, G: 110, B: 110, A: 255}
	// colFaint is non-premultiplied: color.RGBA with A < R, G, B is not a
	// colour and draws as magenta.
	colFaint = color.NRGBA{R: 31, G: 119, B: 180, A: 70}
)

// plotColor is the type of the colours above, for tables of series.
type plotColor = color.RGBA

// newPlot starts a plot with a title, axis labels and readable linear
// ticks, the parts every plot has.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Tick.Marker, p.Y.Tick.Marker = linearTicks{}, linearTicks{}
	return p
}

// legendGap separates the legend band from the title and from the data.
const legendGap vg.Length = 6 // points

// legendAbove gives the legend a band of its own between the title and
// the data, left-aligned over the Y axis: gonum draws legends inside the
// data area with no background, where they hide points (a sweep's first
// load sits top left, under a top-left legend). The title's padding makes
// the room and the legend is lifted into it.
func legendAbove(p *plot.Plot) {
	h := p.Legend.Rectangle(draw.Canvas{}).Size().Y
	if h == 0 {
		return
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.YOffs = h + legendGap
	p.Title.Padding += h + legendGap
}

// Image is one rendered plot: the file name it is written under and its
// PNG bytes, so a caller can write a plot to disk and embed the same
// bytes in report.html without drawing it twice.
type Image struct {
	// Name is the file name, e.g. "chat-throughput_vs_p99_ttft.png".
	Name string
	// PNG is the encoded image.
	PNG []byte
}

// namedPlot is one plot of a set: its file name and how to build it;
// build returns a nil plot when the plot's data is absent.
type namedPlot struct {
	name  string
	build func() (*plot.Plot, error)
}

// renderAll builds and encodes each plot in order, skipping the absent.
func renderAll(set []namedPlot) ([]Image, error) {
	var imgs []Image
	for _, np := range set {
		p, err := np.build()
		if err != nil {
			return imgs, err
		}
		if p == nil {
			continue
		}
		img, err := encode(p, np.name)
		if err != nil {
			return imgs, err
		}
		imgs = append(imgs, img)
	}
	return imgs, nil
}

// encode lays out p's legend and draws p as a PNG in memory.
func encode(p *plot.Plot, name string) (Image, error) {
	legendAbove(p)
	w, err := p.WriterTo(Width, Height, "png")
	if err != nil {
		return Image{}, fmt.Errorf("plots: %s: %w", name, err)
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		return Image{}, fmt.Errorf("plots: %s: %w", name, err)
	}
	return Image{Name: name, PNG: b.Bytes()}, nil
}

// WriteImages writes each image as dir/Name, creating dir when there is
// something to write, and returns the paths written in order; an image
// that cannot be written does not stop the others, and every failure is
// returned.
func WriteImages(dir string, imgs []Image) ([]string, error) {
	if len(imgs) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	paths := make([]string, 0, len(imgs))
	var errs []error
	for _, img := range imgs {
		path := filepath.Join(dir, img.Name)
		if err := os.WriteFile(path, img.PNG, 0o644); err != nil {
			errs = append(errs, fmt.Errorf("plots: %w", err)) // the others are still written
			continue
		}
		paths = append(paths, path)
	}
	return paths, errors.Join(errs...)
}

// percentile is numpy's default (linear between closest ranks), as in the
// tables, so a line marked p99 on a plot is the p99 printed next to it.
// sorted must be ascending and non-empty.
func percentile(sorted []float64, q float64) float64 {
	pos := q / 100 * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	frac := pos - float64(lo)
	return sorted[lo] + frac*(sorted[lo+1]-sorted[lo])
}

// sortedCopy returns vs sorted, leaving vs as it was.
func sortedCopy(vs []float64) []float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	return s
}

// stride is the step that samples n items down to at most maxScatter.
func stride(n int) int {
	return max(1, (n+maxScatter-1)/maxScatter)
}

// axisLabel names an axis after what it shows, in the catalogue's report
// unit of the metric it shows: "TTFT (ms)".
func axisLabel(what string, m *metrics.Metric) string { return what + " (" + m.Unit + ")" }
