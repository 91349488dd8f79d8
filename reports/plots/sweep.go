package plots

import (
	"cmp"
	"slices"
	"strconv"

	"gonum.org/v1/plot"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
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
// along its load axis in memory, each named "<experiment>-<stem>.png":
// output token throughput vs p99 TTFT and vs p99 ITL with every point
// labelled by its load and the knee and saturation points marked; goodput
// vs load when goodput was measured; throughput vs load with 95%
// confidence intervals when points were repeated. The marks are the
// run's Capacity: its knee (check()'s knee() gate, else the experiment's
// first latency gate, else none) and its saturation point, so the plots
// say what the table and summary.json say. A plot whose data is absent is
// skipped, and a sweep with fewer than two points plots nothing.
func RenderSweepPlots(res *runtime.ExperimentResult) ([]Image, error) {
	d := newSweepData(res)
	if len(d.pts) < 2 {
		return nil, nil
	}
	prefix := sweepPrefix(res)
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

// sweepPrefix starts the sweep plots' file names: the experiment's name,
// "sweep" when unnamed. analyze names its experiment after the model, and
// a Hugging Face model id (org/model) holds a "/": as in GenAI-Perf's
// folder names it becomes "_", so the plot lands in the folder asked for
// instead of a subfolder that does not exist.
func sweepPrefix(res *runtime.ExperimentResult) string {
	if res.Experiment != nil && res.Experiment.Name != "" {
		return genaiperf.FileSafe(res.Experiment.Name)
	}
	return "sweep"
}

// WriteSweepPlots writes RenderSweepPlots' plots, then
// RenderTelemetrySweepPlots', into dir (created if missing) and returns
// the paths written.
func WriteSweepPlots(dir string, res *runtime.ExperimentResult) ([]string, error) {
	imgs, err := RenderSweepPlots(res)
	if err != nil {
		return nil, err
	}
	tel, err := RenderTelemetrySweepPlots(res)
	if err != nil {
		return nil, err
	}
	return WriteImages(dir, append(imgs, tel...))
}

// newSweepData orders the finished points by load and finds the points
// the run's Capacity marks among them.
func newSweepData(res *runtime.ExperimentResult) *sweepData {
	c := res.Analysis()
	d := &sweepData{param: c.Param, knee: -1, saturation: -1}
	var kneePR, satPR *runtime.PointResult
	if k := c.Knee; k != nil {
		d.kneeGate = &k.Gate
		if k.Found {
			kneePR = &res.Points[k.Point]
		}
	}
	if s := c.Saturation; s != nil && s.Point >= 0 && s.Point < len(res.Points) {
		satPR = &res.Points[s.Point]
	}
	for i := range res.Points {
		p := &res.Points[i]
		v, ok := p.Params[c.Param]
		if !ok || p.Outcome == nil || p.Outcome.Interrupted {
			continue
		}
		d.pts = append(d.pts, sweepPoint{load: v, pr: p})
	}
	slices.SortStableFunc(d.pts, func(a, b sweepPoint) int { return cmp.Compare(a.load, b.load) })
	for i, p := range d.pts {
		if p.pr == kneePR {
			d.knee = i
		}
		if p.pr == satPR {
			d.saturation = i
		}
	}
	return d
}

// loadLabel is a point's load as people say it: "c=16", "8 req/s".
func loadLabel(param string, v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	switch param {
	case metrics.ParamConcurrency:
		return "c=" + s
	case metrics.ParamRate:
		return s + " req/s"
	}
	return param + "=" + s
}

// loadAxis names the load axis.
func loadAxis(param string) string {
	if param == metrics.ParamRate {
		return "request rate (req/s)"
	}
	return param
}
