package plots

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/telemetry"
	"github.com/llmbench/llmbench/runtime"
)

// The telemetry sweep plots' stems, named "<experiment>-<stem>.png" like
// the capacity plots.
const (
	// StemThreeAxes is the design article's dashboard: output token
	// throughput, energy per output token and cost per million output
	// tokens along the load, stacked over one load axis.
	StemThreeAxes = "throughput_energy_cost_vs_load"
	// StemGPUPower is the GPUs' total power along the load.
	StemGPUPower = "gpu_power_vs_load"
)

// RenderTelemetrySweepPlots draws what a sweep's telemetry says along its
// load (SPEC §8): the three axes — performance (output tokens/s), energy
// (J per output token) and cost (per million output tokens, in the
// run's currency) — stacked over one load axis with the knee and
// saturation marked as on the capacity plots, and the GPUs' average and
// p99 total power. The three-axes figure is drawn when some point knew
// its energy per token or its cost, the power plot when some point
// measured power; points without telemetry are left out of the
// telemetry panels, and a sweep where no point has telemetry, or with
// fewer than two points, gets nothing.
func RenderTelemetrySweepPlots(res *runtime.ExperimentResult) ([]Image, error) {
	d := newSweepData(res)
	if len(d.pts) < 2 {
		return nil, nil
	}
	prefix := sweepPrefix(res)
	var imgs []Image
	if panels, err := threeAxes(d); err != nil {
		return nil, err
	} else if panels != nil {
		img, err := encodePanels(prefix+"-"+StemThreeAxes+".png", panels)
		if err != nil {
			return nil, err
		}
		imgs = append(imgs, img)
	}
	more, err := renderAll([]namedPlot{{prefix + "-" + StemGPUPower + ".png", func() (*plot.Plot, error) { return powerVsLoad(d) }}})
	return append(imgs, more...), err
}

// loadValues is a quantity along the load: its points in increasing load,
// and where each point of d.pts landed, for the marks.
type loadValues struct {
	xys plotter.XYs
	at  map[int]plotter.XY
}

// alongLoad takes value of every point that has it.
func alongLoad(d *sweepData, value func(*runtime.Outcome) (float64, bool)) loadValues {
	lv := loadValues{at: map[int]plotter.XY{}}
	for i, p := range d.pts {
		v, ok := value(p.pr.Outcome)
		if !ok {
			continue
		}
		xy := plotter.XY{X: p.load, Y: v}
		lv.xys, lv.at[i] = append(lv.xys, xy), xy
	}
	return lv
}

// telemetryValue reads a known telemetry value of a point's outcome.
func telemetryValue(get func(*metrics.TelemetrySummary) metrics.TelemetryValue) func(*runtime.Outcome) (float64, bool) {
	return func(o *runtime.Outcome) (float64, bool) {
		if o.Telemetry == nil {
			return 0, false
		}
		v := get(&o.Telemetry.Summary)
		return v.Value, v.OK
	}
}

// threeAxes builds the panels of the three-axes figure; nil when no point
// knew its energy per token or its cost.
func threeAxes(d *sweepData) ([]*plot.Plot, error) {
	energy := alongLoad(d, telemetryValue(func(t *metrics.TelemetrySummary) metrics.TelemetryValue { return t.EnergyPerToken }))
	cost := alongLoad(d, telemetryValue(func(t *metrics.TelemetrySummary) metrics.TelemetryValue { return t.CostPerMillionTokens }))
	if len(energy.xys) == 0 && len(cost.xys) == 0 {
		return nil, nil
	}
	thr := alongLoad(d, func(o *runtime.Outcome) (float64, bool) { return metrics.OutputTokenThroughput.Value(&o.Summary) })
	type panel struct {
		lv     loadValues
		ylabel string
		col    plotColor
		unit   string
	}
	panels := []panel{{thr, axisLabel("output token throughput", metrics.OutputTokenThroughput), colBlue, ""}}
	if len(energy.xys) > 0 {
		panels = append(panels, panel{energy, axisLabel("energy per output token", metrics.EnergyPerToken), colOrange, " J"})
	}
	if len(cost.xys) > 0 {
		cur := sweepCurrency(d)
		panels = append(panels, panel{cost, cur + " per million output tokens", colGreen, " " + cur})
	}
	var out []*plot.Plot
	for i, pn := range panels {
		p := newPlot("", "", pn.ylabel)
		if i == 0 {
			p.Title.Text = simulatedTitle("Performance, energy and cost vs load", sweepSimulated(d)) + "\n" + d.param + " sweep"
		}
		if i == len(panels)-1 {
			p.X.Label.Text = loadAxis(d.param)
		}
		if err := loadLine(p, pn.lv, pn.col, pn.unit); err != nil {
			return nil, err
		}
		// Every panel spans the same loads, so their X axes line up.
		scaleLoadAxis(&p.X, d.param, xs(thr.xys))
		p.X.Min, p.X.Max = minMax(xs(thr.xys))
		fromZero(&p.Y)
		if err := markLoads(p, d, pn.lv.at, i == 0); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// loadLine draws one quantity along the load, each point labelled with
// its value and unit, so the figure can be read without the table.
func loadLine(p *plot.Plot, lv loadValues, col plotColor, unit string) error {
	line, pts, err := plotter.NewLinePoints(lv.xys)
	if err != nil {
		return fmt.Errorf("plots: telemetry: %w", err)
	}
	line.Color, line.Width = col, vg.Points(1.5)
	pts.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	labels := make([]string, len(lv.xys))
	for i, xy := range lv.xys {
		labels[i] = threeDigits(xy.Y) + unit
	}
	lab, err := plotter.NewLabels(plotter.XYLabels{XYs: lv.xys, Labels: labels})
	if err != nil {
		return fmt.Errorf("plots: telemetry: %w", err)
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i].XAlign, lab.TextStyle[i].YAlign = draw.XCenter, draw.YBottom
	}
	lab.Offset = vg.Point{Y: vg.Points(11)} // clear of the knee ring and the saturation triangle
	p.Add(line, pts, lab)
	// Room above the highest point for its label.
	top := 0.0
	for _, xy := range lv.xys {
		top = max(top, xy.Y)
	}
	p.Y.Max = max(p.Y.Max, top*1.15)
	return nil
}

// sweepCurrency is the currency of the sweep's costs: the first point's
// with telemetry (one experiment has one price), EUR by default.
func sweepCurrency(d *sweepData) string {
	for _, p := range d.pts {
		if t := p.pr.Outcome.Telemetry; t != nil {
			return telemetry.Currency(&t.Summary)
		}
	}
	return telemetry.Currency(&metrics.TelemetrySummary{})
}

// powerVsLoad is the GPUs' total power along the load: the average from
// the energy counters over the window, and the p99 of the per-scrape
// totals, under the GPUs' summed power limit when they export it, so the
// headroom a load leaves shows. Skipped when no point measured power.
func powerVsLoad(d *sweepData) (*plot.Plot, error) {
	avg := alongLoad(d, telemetryValue(func(t *metrics.TelemetrySummary) metrics.TelemetryValue { return t.AveragePower }))
	p99 := alongLoad(d, func(o *runtime.Outcome) (float64, bool) {
		if o.Telemetry == nil || o.Telemetry.Summary.Power == nil {
			return 0, false
		}
		return o.Telemetry.Summary.Power.Percentile(99), true
	})
	if len(avg.xys) == 0 && len(p99.xys) == 0 {
		return nil, nil
	}
	gpus, limit := sweepGPUs(d)
	p := newPlot(simulatedTitle("Total GPU power vs load", sweepSimulated(d))+"\n"+d.param+" sweep · "+gpuWords(gpus),
		loadAxis(d.param), axisLabel("power, all GPUs", metrics.GPUPower))
	series := []struct {
		lv    loadValues
		name  string
		col   plotColor
		shape draw.GlyphDrawer
	}{
		{avg, "average (energy counters ÷ the point's duration)", colOrange, draw.CircleGlyph{}},
		{p99, "p99 of the per-scrape total", colRed, draw.BoxGlyph{}},
	}
	var loads []float64
	for _, s := range series {
		if len(s.lv.xys) == 0 {
			continue
		}
		line, pts, err := plotter.NewLinePoints(s.lv.xys)
		if err != nil {
			return nil, fmt.Errorf("plots: power: %w", err)
		}
		line.Color, line.Width = s.col, vg.Points(1.5)
		pts.GlyphStyle = draw.GlyphStyle{Color: s.col, Radius: vg.Points(3), Shape: s.shape}
		p.Add(line, pts)
		p.Legend.Add(s.name, line, pts)
		loads = append(loads, xs(s.lv.xys)...)
	}
	if limit > 0 {
		lo, hi := minMax(loads)
		l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: limit}, {X: hi, Y: limit}})
		if err != nil {
			return nil, fmt.Errorf("plots: power: %w", err)
		}
		l.Color, l.Dashes = colGrey, []vg.Length{vg.Points(6), vg.Points(3)}
		p.Add(l)
		p.Legend.Add("power limit, all GPUs ("+strconv.FormatFloat(limit, 'f', 0, 64)+" W)", l)
	}
	marks := avg
	if len(marks.xys) == 0 {
		marks = p99
	}
	scaleLoadAxis(&p.X, d.param, loads)
	fromZero(&p.Y)
	return p, markPoints(p, d, marks.at)
}

// sweepSimulated says whether some point's telemetry is the simulator's
// made-up one.
func sweepSimulated(d *sweepData) bool {
	for _, p := range d.pts {
		if t := p.pr.Outcome.Telemetry; t != nil && t.Summary.Simulated {
			return true
		}
	}
	return false
}

// simulatedTitle is a heading with "(simulated)" after it when its
// figures are the simulator's.
func simulatedTitle(title string, simulated bool) string {
	if simulated {
		return title + " (simulated)"
	}
	return title
}

// sweepGPUs is the most GPUs a point saw and, at that point, their summed
// power limit (0 when not exported).
func sweepGPUs(d *sweepData) (gpus int, limit float64) {
	for _, p := range d.pts {
		t := p.pr.Outcome.Telemetry
		if t == nil || len(t.Summary.GPUs) <= gpus {
			continue
		}
		gpus, limit = len(t.Summary.GPUs), 0
		for i := range t.Summary.GPUs {
			if f := t.Summary.GPUs[i].Field("gpu_power_limit"); f != nil {
				limit += f.Avg
			}
		}
	}
	return gpus, limit
}

func gpuWords(n int) string {
	if n == 1 {
		return "1 GPU"
	}
	return strconv.Itoa(n) + " GPUs"
}

func minMax(vs []float64) (lo, hi float64) {
	lo, hi = vs[0], vs[0]
	for _, v := range vs {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// threeDigits prints v with three significant digits, trailing zeros
// kept so the labels along a line read alike (2.00 beside 1.16, not 2),
// and no decimals past the units (1896 tokens/s, not 1.9e+03).
func threeDigits(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	decimals := max(0, 2-int(math.Floor(math.Log10(math.Abs(v)))))
	return strconv.FormatFloat(v, 'f', decimals, 64)
}
