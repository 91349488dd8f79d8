package metrics

import (
	"fmt"
	"math"
	"strings"
)

// perGPUKey, after a GPU metric's name, judges each GPU on its own:
// gpu_power.per_gpu.max.
const perGPUKey = "per_gpu"

// cutPerGPU reports whether stat starts with per_gpu, and returns what
// follows it ("" or ".STAT").
func cutPerGPU(stat string) (rest string, ok bool) {
	rest, ok = strings.CutPrefix(stat, perGPUKey)
	return rest, ok && (rest == "" || rest[0] == '.')
}

// MeasuredFromTelemetry reports whether g is measured with
// MeasureTelemetry rather than Measure: the NeedTelemetry metrics, and
// cost_per_mtok, whose price travels in the TelemetryWindow (a summary
// reduced from no samples at all still has it).
func (g Gate) MeasuredFromTelemetry() bool {
	return g.Metric != nil && g.Metric.telemetry != nil
}

// MeasureTelemetry returns the gate's metric from a point's
// TelemetrySummary, in the metric's native unit, ready for Check:
//
//   - gpu_power: the statistic of the total power across GPUs, one value
//     per scrape (W); gpu_utilization: of the mean utilisation across GPUs
//     per scrape, DCGM's % as a ratio (a gate's 80% is 0.8);
//   - with PerGPU, the statistic of each GPU's own samples, and of those
//     the worst for the comparison: the highest under < and <=, the lowest
//     under > and >=, the farthest from the limit under ==, the nearest
//     under != — so the gate passes exactly when every GPU passes;
//   - energy_per_token: J per output token; cost_per_mtok: the price per
//     million output tokens;
//   - kv_cache_usage: the statistic of the fullest engine's KV-cache use
//     per scrape, as a ratio; num_requests_waiting: of the queue length
//     summed across engines per scrape.
//
// It is an error wrapping ErrNotMeasured, saying what was missing, when
// the telemetry lacks the value, and a plain error for a metric not
// measured from telemetry (see MeasuredFromTelemetry).
func (g Gate) MeasureTelemetry(t *TelemetrySummary) (float64, error) {
	if !g.MeasuredFromTelemetry() {
		return math.NaN(), fmt.Errorf("%s is not measured from telemetry; use Measure", g.Name())
	}
	if t == nil {
		return g.notMeasured("no telemetry")
	}
	return g.Metric.telemetry(g, t)
}

// notMeasured is the error of a gate whose run lacks its value, saying
// why when why is not empty.
func (g Gate) notMeasured(why string) (float64, error) {
	if why == "" {
		return math.NaN(), fmt.Errorf("%s: %w", g.Name(), ErrNotMeasured)
	}
	return math.NaN(), fmt.Errorf("%s: %w: %s", g.Name(), ErrNotMeasured, why)
}

// telemetryValue is a value the telemetry holds or says why it lacks.
func (g Gate) telemetryValue(v TelemetryValue) (float64, error) {
	if !v.OK {
		return g.notMeasured(v.Why)
	}
	return v.Value, nil
}

// scaledStatistic is the gate's statistic of d divided by unit (100 turns
// a % into the gate's ratio).
func (g Gate) scaledStatistic(d *Distribution, unit float64, missing string) (float64, error) {
	if d == nil {
		return g.notMeasured(missing)
	}
	v, err := g.statistic(d)
	return v / unit, err
}

// gpuStatistic measures a GPU gate on the aggregate across GPUs, or per
// GPU on field's statistics.
func (g Gate) gpuStatistic(t *TelemetrySummary, aggregate *Distribution, field string, unit float64) (float64, error) {
	missing := "no GPU telemetry (no DCGM exporter among the telemetry URLs)"
	if len(t.GPUs) > 0 {
		missing = "no GPU exported " + field + " during the point"
	}
	if !g.PerGPU {
		return g.scaledStatistic(aggregate, unit, missing)
	}
	worst := math.NaN()
	for i := range t.GPUs {
		d := t.GPUs[i].Field(field)
		if d == nil {
			continue
		}
		v, err := g.statistic(d)
		if err != nil {
			return math.NaN(), err
		}
		if v /= unit; math.IsNaN(worst) || g.worse(v, worst) {
			worst = v
		}
	}
	if math.IsNaN(worst) {
		return g.notMeasured(missing)
	}
	return worst, nil
}

// worse reports whether a is further on the failing side of g's limit
// than b, so that the worst GPU passes only if every GPU does.
func (g Gate) worse(a, b float64) bool {
	switch g.Op {
	case "<", "<=":
		return a > b
	case ">", ">=":
		return a < b
	case "==":
		return math.Abs(a-g.Value) > math.Abs(b-g.Value)
	case "!=":
		return math.Abs(a-g.Value) < math.Abs(b-g.Value)
	}
	return false
}
