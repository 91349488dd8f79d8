package plots

import (
	"math"
	"strconv"

	"github.com/llmbench/llmbench/metrics"
	"gonum.org/v1/plot"
)

// Tick markers. gonum's defaults print "250.00" requests on a histogram,
// label a log axis only at powers of ten (a 30–1000 ms axis gets two
// labels) and step by odd amounts such as 60; these step by 1, 2 or 5
// times a power of ten, print integers on integer axes and label log
// axes densely enough to read a value off them.

// linearTicks labels a linear axis every 1, 2 or 5 × 10^k, four to nine
// labels across it, with minor ticks between. An integer axis (requests,
// tokens, concurrency) never steps below 1 and prints no decimals.
type linearTicks struct{ integer bool }

// Ticks implements plot.Ticker.
func (t linearTicks) Ticks(lo, hi float64) []plot.Tick {
	step := niceStep((hi - lo) / 8)
	if t.integer {
		step = math.Max(1, step)
	}
	decimals := max(0, -int(math.Floor(math.Log10(step))))
	var ticks []plot.Tick
	minor := step / minorDivisions(step, t.integer)
	// Ticks are snapped to the minor step's digits, so an end of the axis
	// at 0.7 gets its tick instead of losing it to 7 × 0.1 > 0.7.
	digits := math.Pow10(decimals + 1)
	for k := math.Ceil(lo/minor - 1e-9); ; k++ {
		v := math.Round(k*minor*digits) / digits
		if v > hi {
			break
		}
		tick := plot.Tick{Value: v}
		if onStep(v, step) {
			tick.Label = tickLabel(v, decimals)
		}
		ticks = append(ticks, tick)
	}
	return ticks
}

// tickLabel prints v with decimals digits; a zero reached from below
// (-0 × step) would print as "-0".
func tickLabel(v float64, decimals int) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// niceStep is the smallest 1, 2 or 5 × 10^k at least raw.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	mag := math.Pow10(int(math.Floor(math.Log10(raw))))
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw*(1-1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

// minorDivisions splits a step of 1, 2 or 5 × 10^k into fifths, quarters
// or fifths; an integer axis gets no minor tick between whole numbers.
func minorDivisions(step float64, integer bool) float64 {
	div := 5.0
	if lead := step / math.Pow10(int(math.Floor(math.Log10(step)))); math.Round(lead) == 2 {
		div = 4
	}
	if integer && step < div {
		return step
	}
	return div
}

// onStep reports whether v is a multiple of step, up to rounding.
func onStep(v, step float64) bool {
	r := math.Abs(v/step - math.Round(v/step))
	return r < 1e-6
}

// logTicks labels a log axis at 1, 2 and 5 × 10^k when it spans up to
// three decades, at every integer × 10^k when it spans less than one
// (a 2–8× range would otherwise get one label or none), and at powers of
// ten beyond three; minor ticks mark the other integers × 10^k.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	labelled := map[int]bool{1: true}
	switch decades := math.Log10(hi / lo); {
	case decades < 1:
		labelled = map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true, 9: true}
	case decades <= 3:
		labelled = map[int]bool{1: true, 2: true, 5: true}
	}
	var ticks []plot.Tick
	for k := int(math.Floor(math.Log10(lo))); k <= int(math.Ceil(math.Log10(hi))); k++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow10(k)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			tick := plot.Tick{Value: v}
			if labelled[m] {
				tick.Label = tickLabel(v, max(0, -k))
			}
			ticks = append(ticks, tick)
		}
	}
	return ticks
}

// maxValueTicks bounds the load values labelled one by one: more would
// collide on an 8-inch axis.
const maxValueTicks = 12

// loadTicks labels the load axis at the loads the sweep ran, so every
// point has its value under it (1, 2, 4 ... 128 on a geometric sweep,
// not gonum's 1 and 10); with too many loads it falls back to regular
// ticks, integer for every load but a request rate.
func loadTicks(param string, loads []float64, log bool) plot.Ticker {
	if len(loads) > maxValueTicks {
		if log {
			return logTicks{}
		}
		return linearTicks{integer: param != metrics.ParamRate}
	}
	ticks := make(plot.ConstantTicks, len(loads))
	for i, v := range loads {
		ticks[i] = plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)}
	}
	return ticks
}

// scaleAxis puts an axis on a log scale when its values are positive and
// span a decade or more (geometric sweeps then space evenly, and a p99
// that explodes past saturation does not flatten the rest) and reports
// whether it did; the axis gets the matching ticks.
func scaleAxis(a *plot.Axis, vs []float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if lo > 0 && hi/lo >= 10 {
		a.Scale, a.Tick.Marker = plot.LogScale{}, logTicks{}
		return true
	}
	return false
}

// scaleLoadAxis scales the load axis like scaleAxis and labels it at the
// loads.
func scaleLoadAxis(a *plot.Axis, param string, loads []float64) {
	a.Tick.Marker = loadTicks(param, loads, scaleAxis(a, loads))
}

// integerAxis marks an axis of counts or token lengths in whole numbers.
func integerAxis(a *plot.Axis) {
	a.Tick.Marker = linearTicks{integer: true}
}

// fromZero starts a throughput axis at zero, so the eye reads the heights
// of two loads as their ratio.
func fromZero(a *plot.Axis) {
	a.Min = 0
}
