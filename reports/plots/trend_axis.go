package plots

import (
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The run axis of a trend plot: one category per run, labelled by its
// name, however many runs and however long their names.

// maxRunLabel is the longest run name printed whole; a longer one keeps
// its start and its end, where folder names differ (dates, build
// numbers), with an ellipsis between.
const maxRunLabel = 28

// runSlant is the angle of run labels too wide to stand side by side.
const runSlant = math.Pi / 6

// runAxis labels each run under its place and names the axis. Labels
// wider than a run's slot lose the prefix every run name shares
// (nightly-2024-05-), which the axis name then carries, and are cut to
// maxRunLabel; still too wide, they are slanted, and when even slanted ones would touch (they sit a
// slot × sin 30° apart) only every step-th run is labelled, the others
// getting a bare tick. It needs the Y axis' range, to keep the first
// slanted label inside the image.
func runAxis(p *plot.Plot, runs []TrendRun) {
	names := make([]string, len(runs))
	for i, r := range runs {
		names[i] = r.Name
	}
	slot := 6.5 * vg.Inch / vg.Length(max(1, len(runs))) // the data area is about 6.5 in of the 8 in plot
	labels, widest := runLabels(p, names, false)
	if widest > 0.9*slot {
		if prefix := sharedPrefix(names); prefix != "" {
			for i := range names {
				names[i] = strings.TrimPrefix(names[i], prefix)
			}
			p.X.Label.Text = "run: " + prefix + "… (in the order the runs started)"
		}
		labels, widest = runLabels(p, names, true)
	}
	step, slanted := 1, widest > 0.9*slot
	if slanted {
		p.X.Tick.Label.Rotation = runSlant
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YTop
		height := p.X.Tick.Label.Height("Xg")
		step = max(1, int(math.Ceil(float64(1.2*height/(slot*vg.Length(math.Sin(runSlant)))))))
	}
	ticks := make(plot.ConstantTicks, len(runs))
	for i := range runs {
		ticks[i] = plot.Tick{Value: float64(i)}
		if i%step == 0 {
			ticks[i].Label = labels[i]
		}
	}
	p.X.Tick.Marker = ticks
	if slanted && len(labels) > 0 {
		roomForSlantedLabel(p, labels[0], len(runs))
	}
}

// runLabels are the names, cut to maxRunLabel when cut is set, and the
// widest's width.
func runLabels(p *plot.Plot, names []string, cut bool) ([]string, vg.Length) {
	labels := make([]string, len(names))
	widest := vg.Length(0)
	for i, name := range names {
		labels[i] = name
		if n := []rune(name); cut && len(n) > maxRunLabel {
			head := (maxRunLabel - 1) / 3
			labels[i] = string(n[:head]) + "…" + string(n[len(n)-(maxRunLabel-1-head):])
		}
		widest = max(widest, p.X.Tick.Label.Width(labels[i]))
	}
	return labels, widest
}

// sharedPrefix is the prefix all of several names share, up to and with
// its last separator (- _ . / or a space), so no name is cut inside a
// word or a number; "" when they share none or it would leave a name
// empty.
func sharedPrefix(names []string) string {
	if len(names) < 2 {
		return ""
	}
	prefix := names[0]
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	cut := strings.LastIndexAny(prefix, "-_./ ")
	if cut < 0 {
		return ""
	}
	prefix = prefix[:cut+1]
	for _, n := range names {
		if n == prefix {
			return ""
		}
	}
	return prefix
}

// roomForSlantedLabel widens the Y axis' margin (its label's padding,
// which keeps the axis beside the data) when the first slanted run label
// reaches further left than the axis and half a slot: gonum fits tick
// labels into the image on the right only, so it would be cut.
func roomForSlantedLabel(p *plot.Plot, first string, runs int) {
	reach := -p.X.Tick.Label.Rectangle(first).Min.X
	axis := yAxisWidth(p)
	slot := (Width - axis) / vg.Length(runs)
	if need := reach + vg.Points(6) - (axis + slot/2); need > 0 {
		p.Y.Label.Padding += need
	}
}

// yAxisWidth is the width gonum gives the Y axis (its label, tick labels
// and ticks), as gonum's own layout computes it.
func yAxisWidth(p *plot.Plot) vg.Length {
	a := &p.Y
	w := a.Label.TextStyle.FontExtents().Descent + a.Label.TextStyle.Height(a.Label.Text) + a.Label.Padding
	widest := vg.Length(0)
	for _, t := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		if !t.IsMinor() {
			widest = max(widest, a.Tick.Label.Width(t.Label))
		}
	}
	if widest > 0 {
		w += widest + a.Label.TextStyle.Width(" ")
	}
	return w + a.Tick.Length + a.Width/2 + a.Padding
}
