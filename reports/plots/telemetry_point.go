package plots

import (
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// FileTelemetry is a point's telemetry over time, beside its plots.
const FileTelemetry = "telemetry_over_time.png"

// RenderTelemetryPlots draws a point's telemetry over time in memory as
// one figure of stacked panels sharing a time axis — the GPUs' total
// power (W), the KV-cache use (%), the requests running and waiting on
// the server — so a queue building up can be read against the power and
// the cache it comes with. Time runs in seconds from the point's first
// send, and dashed lines mark the measured window (first send to last
// response) the tables reduce over: the scrapes before and after it are
// drawn too. A panel whose quantity no source exported is left out, and
// a point with none of them (or no telemetry) gets no figure. title
// names the point, as on the point plots; the simulator's made-up
// figures say "simulated" in the heading.
func RenderTelemetryPlots(title string, pt *runtime.PointTelemetry) ([]Image, error) {
	if pt == nil || len(pt.Samples) == 0 {
		return nil, nil
	}
	w := pt.Summary.Window
	origin, xlabel := w.Start, "time since the first request was sent (s)"
	if w.End <= w.Start { // no window to measure from: from the first scrape
		origin, xlabel = pt.Samples[0].Time, "time since the first scrape (s)"
		for _, s := range pt.Samples {
			origin = min(origin, s.Time)
		}
	}
	tl := metrics.TimelineOf(pt.Samples)
	var out []*plot.Plot
	for _, pn := range []timelinePanel{
		{axisLabel("total GPU power", metrics.GPUPower), []timelineSeries{{tl.Power, "all GPUs", colOrange}}, false, false},
		{axisLabel("KV-cache use", metrics.KVCacheUsage), []timelineSeries{{tl.KVCacheUsage, "fullest engine", colGreen}}, true, false},
		{"requests on the server", []timelineSeries{{tl.Running, "running", colBlue}, {tl.Waiting, "waiting", colRed}}, false, true},
	} {
		p, err := pn.plot(origin)
		if err != nil {
			return nil, err
		}
		if p != nil {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	out[0].Title.Text = withTitle(simulatedTitle("Telemetry over time", tl.Simulated), title)
	out[len(out)-1].X.Label.Text = xlabel
	if w.End > w.Start {
		if err := markWindow(out, float64(w.End-w.Start)/1e9); err != nil {
			return nil, err
		}
	}
	img, err := encodePanels(FileTelemetry, out)
	if err != nil {
		return nil, err
	}
	return []Image{img}, nil
}

// timelinePanel is one quantity over time: its axis, its lines, and
// whether it is a percentage (drawn 0–100) or a count (whole numbers).
type timelinePanel struct {
	ylabel           string
	series           []timelineSeries
	percent, integer bool
}

// timelineSeries is one line of a panel, named in the legend when the
// panel has several.
type timelineSeries struct {
	vs   []metrics.TimedValue
	name string
	col  plotColor
}

// plot draws the panel, times in seconds from origin; nil when none of
// its quantities was exported.
func (pn timelinePanel) plot(origin int64) (*plot.Plot, error) {
	p := newPlot("", "", pn.ylabel)
	drawn := false
	for _, s := range pn.series {
		if len(s.vs) == 0 {
			continue
		}
		line, err := plotter.NewLine(secondsFrom(origin, s.vs))
		if err != nil {
			return nil, fmt.Errorf("plots: telemetry over time: %w", err)
		}
		line.Color, line.Width = s.col, vg.Points(1.5)
		p.Add(line)
		if len(pn.series) > 1 {
			p.Legend.Add(s.name, line)
		}
		drawn = true
	}
	if !drawn {
		return nil, nil
	}
	fromZero(&p.Y)
	switch {
	case pn.percent:
		p.Y.Max = 100
	case pn.integer:
		integerAxis(&p.Y)
		p.Y.Max = max(p.Y.Max, 1) // an idle server's zeros still get an axis
	}
	return p, nil
}

// markWindow draws the window's edges, 0 and end seconds, as dashed
// lines across every panel, named once in the top panel's legend.
func markWindow(panels []*plot.Plot, end float64) error {
	for i, p := range panels {
		lo, hi := p.Y.Min, p.Y.Max
		for _, x := range []float64{0, end} {
			l, err := plotter.NewLine(plotter.XYs{{X: x, Y: lo}, {X: x, Y: hi}})
			if err != nil {
				return fmt.Errorf("plots: telemetry over time: %w", err)
			}
			l.Color, l.Dashes = colGrey, []vg.Length{vg.Points(5), vg.Points(3)}
			p.Add(l)
			if i == 0 && x == 0 {
				p.Legend.Add(fmt.Sprintf("measured window: first send to last response (%.1f s)", end), l)
			}
		}
	}
	// Every panel spans the same time, so their X axes line up.
	lo, hi := panels[0].X.Min, panels[0].X.Max
	for _, p := range panels {
		lo, hi = min(lo, p.X.Min), max(hi, p.X.Max)
	}
	for _, p := range panels {
		p.X.Min, p.X.Max = lo, hi
	}
	return nil
}

// secondsFrom places timed values in seconds from origin (ns).
func secondsFrom(origin int64, vs []metrics.TimedValue) plotter.XYs {
	xys := make(plotter.XYs, len(vs))
	for i, v := range vs {
		xys[i] = plotter.XY{X: float64(v.Time-origin) / 1e9, Y: v.Value}
	}
	return xys
}

// TelemetryFiles lists the telemetry plots present in dir.
func TelemetryFiles(dir string) []string {
	path := filepath.Join(dir, FileTelemetry)
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	return []string{path}
}
