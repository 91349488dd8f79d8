package plots

import (
	"slices"
	"strconv"

	"gonum.org/v1/plot"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// The sweep plot file names follow "<experiment>-<plot>.png" (experiment
// "sweep" when unnamed), so several experiments can share one folder.
const (
	StemThroughputTTFT = "throughput_vs_p99_ttft"
	StemThroughputITL  = "throughput_vs_p99_itl"
	StemGoodput        = "goodput_vs_load"
	StemRepeats        = "throughput_vs_load_repeats"
)

// sweepPoint is a point that ran to its end, with its load.
type sweepPoint struct {
	load float64
	pr   *runtime.PointResult
}

// sweepData is the sweep in increasing load with the marked points, as
// indexes into pts (-1 when absent).
type sweepData struct {
	param      string
	pts        []sweepPoint
	knee       int
	kneeGate   *metrics.Gate
	saturation int
}

// RenderSweepPlots draws the capacity plots of one experiment's sweep
// along param (e.g. runtime.ParamConcurrency) in memory, each named
// "<experiment>-<stem>.png": output token throughput vs p99 TTFT and vs
// p99 ITL with every point labelled by its load and the knee and
// saturation points marked; goodput vs load when goodput was measured;
// throughput vs load with 95% confidence intervals when points were
// repeated. The knee marked is the last load meeting kneeGate; with a
// nil kneeGate no knee is marked, rather than one judged by an SLO the
// user never set (the caller picks the gate: check()'s knee() gate, else
// the experiment's first latency gate). A plot whose data is absent is
// skipped, and a sweep with fewer than two points plots nothing.
func RenderSweepPlots(res *runtime.ExperimentResult, param string, kneeGate *metrics.Gate) ([]Image, error) {
	d := newSweepData(res, param, kneeGate)
	if len(d.pts) < 2 {
		return nil, nil
	}
	prefix := "sweep"
	if res.Experiment != nil && res.Experiment.Name != "" {
		prefix = res.Experiment.Name
	}
	builders := []struct {
		stem  string
		build func(*sweepData) (*plot.Plot, error)
	}{
		{StemThroughputTTFT, curveTTFT},
		{StemThroughputITL, curveITL},
		{StemGoodput, goodputVsLoad},
		{StemRepeats, repeatsVsLoad},
	}
	set := make([]namedPlot, len(builders))
	for i, b := range builders {
		set[i] = namedPlot{prefix + "-" + b.stem + ".png", func() (*plot.Plot, error) { return b.build(d) }}
	}
	return renderAll(set)
}

// WriteSweepPlots writes RenderSweepPlots' plots into dir (created if
// missing) and returns the paths written. The knee marked is that of the
// first kneeGate given; none given marks none.
func WriteSweepPlots(dir string, res *runtime.ExperimentResult, param string, kneeGate ...metrics.Gate) ([]string, error) {
	var knee *metrics.Gate
	if len(kneeGate) > 0 {
		knee = &kneeGate[0]
	}
	imgs, err := RenderSweepPlots(res, param, knee)
	if err != nil {
		return nil, err
	}
	return WriteImages(dir, imgs)
}

// newSweepData orders the finished points by load and finds the knee and
// the saturation point among them; the knee only when kneeGate is set.
func newSweepData(res *runtime.ExperimentResult, param string, kneeGate *metrics.Gate) *sweepData {
	d := &sweepData{param: param, knee: -1, kneeGate: kneeGate, saturation: -1}
	var satPR *runtime.PointResult
	if s := res.Saturation; s != nil && s.Point >= 0 && s.Point < len(res.Points) {
		satPR = &res.Points[s.Point]
	}
	for i := range res.Points {
		p := &res.Points[i]
		v, ok := p.Params[param]
		if !ok || p.Outcome == nil || p.Outcome.Interrupted {
			continue
		}
		d.pts = append(d.pts, sweepPoint{load: v, pr: p})
	}
	d.order(satPR)
	return d
}

// order sorts the points by load and resolves the marked indexes. The
// knee needs a gate and a single load axis: with two points at one load
// (a grid over a second parameter) it is not marked.
func (d *sweepData) order(satPR *runtime.PointResult) {
	slices.SortStableFunc(d.pts, func(a, b sweepPoint) int { return cmpFloat(a.load, b.load) })
	lps := make([]metrics.LoadPoint, len(d.pts))
	for i, p := range d.pts {
		if p.pr == satPR {
			d.saturation = i
		}
		lps[i] = metrics.LoadPoint{Load: p.load, Summary: &p.pr.Outcome.Summary}
		if i > 0 && p.load == d.pts[i-1].load {
			return
		}
	}
	if d.kneeGate == nil {
		return
	}
	if k, ok := metrics.Knee(lps, *d.kneeGate); ok {
		d.knee = k
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// loadLabel is a point's load as people say it: "c=16", "8 req/s".
func loadLabel(param string, v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	switch param {
	case runtime.ParamConcurrency:
		return "c=" + s
	case runtime.ParamRate:
		return s + " req/s"
	}
	return param + "=" + s
}

// loadAxis names the load axis.
func loadAxis(param string) string {
	if param == runtime.ParamRate {
		return "request rate (req/s)"
	}
	return param
}
