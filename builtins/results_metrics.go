package builtins

import (
	"fmt"
	"math"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/metrics"
)

// addMetrics sets one attribute per metric of the catalogue, named as
// gates name it (SPEC §2) and in the units a bare number in a gate is read
// in (Metric.ScenarioScale: ms for times, ratios from 0 to 1), so that
// p.ttft.p99 < 500 and p.error_rate < 0.01 in check() mean what the gates
// "ttft.p99 < 500" and "error_rate < 0.01" mean. A per-request metric is
// its statistics; any other metric is one number, read as its gate reads
// it (telemetry's average over the point, cost from the price). An
// attribute is None when the run did not measure it, and all are None
// when the point has no summary.
func addMetrics(attrs starlark.StringDict, run metrics.RunData) {
	for _, m := range metrics.Catalogue() {
		attrs[m.Name] = metricValue(m, run)
	}
	attrs["errors"] = starlark.None
	if run.Summary != nil {
		attrs["errors"] = errorList(run.Summary.Errors)
	}
}

// metricValue is m's attribute in run.
func metricValue(m *metrics.Metric, run metrics.RunData) starlark.Value {
	if m.Kind == metrics.PerRequest {
		d := m.Distribution(run.Summary)
		if d == nil {
			return starlark.None
		}
		return newStatsValue(m.Name, d.Scaled(m.ScenarioScale()))
	}
	v, err := metrics.Gate{Metric: m}.MeasureRun(run)
	switch {
	case err != nil:
		return starlark.None
	case m.WholeNumber():
		return integer(int(v))
	}
	return float(v * m.ScenarioScale())
}

// errorList is a point's error list: class, HTTP status, message, count.
func errorList(errs []metrics.ErrorCount) *starlark.List {
	list := make([]starlark.Value, len(errs))
	for i, e := range errs {
		// "class" is a reserved word in Starlark (e.class does not parse):
		// error_class is the attribute, class stays for getattr().
		attrs := starlark.StringDict{"class": str(string(e.Class)), "error_class": str(string(e.Class)), "status": integer(e.Status),
			"message": str(e.Message), "count": integer(e.Count)}
		list[i] = newObjectValue("error_count", fmt.Sprintf("error_count(%s, %d)", quote(string(e.Class)), e.Count), attrs)
	}
	return starlark.NewList(list)
}

// statsValue is one metric's statistics at a point, in report units:
// avg, min, max, std, count, p1 … p99, and percentile(p) for any other
// (percentile(99.9)).
type statsValue struct {
	object
	dist *metrics.Distribution
}

func newStatsValue(name string, d *metrics.Distribution) *statsValue {
	attrs := starlark.StringDict{
		"avg": float(d.Avg), "min": float(d.Min), "max": float(d.Max), "std": float(d.Std), "count": integer(d.Count),
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"p1", d.P1}, {"p5", d.P5}, {"p10", d.P10}, {"p25", d.P25}, {"p50", d.P50}, {"p75", d.P75}, {"p90", d.P90}, {"p95", d.P95}, {"p99", d.P99}} {
		attrs[p.name] = float(p.v)
	}
	sv := &statsValue{dist: d}
	attrs["percentile"] = starlark.NewBuiltin("percentile", sv.percentile)
	desc := fmt.Sprintf("%s(avg=%s, p50=%s, p99=%s)", name, num(d.Avg), num(d.P50), num(d.P99))
	sv.object = newObject("stats", desc, attrs, false)
	return sv
}

func (s *statsValue) percentile(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var p number
	if err := unpack(b.Name(), args, kwargs, "p", &p); err != nil {
		return nil, err
	}
	v := s.dist.Percentile(float64(p))
	if math.IsNaN(v) {
		return nil, paramErrorf(b.Name(), "p", "got %s, want a percentile between 0 and 100", num(float64(p)))
	}
	return starlark.Float(v), nil
}
