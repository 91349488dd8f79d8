package builtins

import (
	"fmt"
	"math"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/metrics"
)

// nsToMs scales time distributions to the ms every report shows.
const nsToMs = 1e-6

// distMetrics are the per-request distributions a point exposes, named as
// gates name them (SPEC §2), with the factor to report units.
var distMetrics = []struct {
	name  string
	scale float64
	get   func(*metrics.Summary) *metrics.Distribution
}{
	{"ttft", nsToMs, func(s *metrics.Summary) *metrics.Distribution { return s.TimeToFirstToken }},
	{"ttst", nsToMs, func(s *metrics.Summary) *metrics.Distribution { return s.TimeToSecondToken }},
	{"itl", nsToMs, func(s *metrics.Summary) *metrics.Distribution { return s.InterTokenLatency }},
	{"request_latency", nsToMs, func(s *metrics.Summary) *metrics.Distribution { return s.RequestLatency }},
	{"ttfo", nsToMs, func(s *metrics.Summary) *metrics.Distribution { return s.TimeToFirstOutputToken }},
	{"isl", 1, func(s *metrics.Summary) *metrics.Distribution { return s.InputSequenceLength }},
	{"osl", 1, func(s *metrics.Summary) *metrics.Distribution { return s.OutputSequenceLength }},
	{"output_token_throughput_per_user", 1, func(s *metrics.Summary) *metrics.Distribution { return s.OutputTokenThroughputPerUser }},
	{"schedule_lag", nsToMs, func(s *metrics.Summary) *metrics.Distribution { return s.ScheduleLag }},
	{"ttft_from_schedule", nsToMs, func(s *metrics.Summary) *metrics.Distribution { return s.TTFTFromSchedule }},
	{"request_latency_from_schedule", nsToMs, func(s *metrics.Summary) *metrics.Distribution { return s.RequestLatencyFromSchedule }},
	{"chunk_gap", nsToMs, func(s *metrics.Summary) *metrics.Distribution { return s.ChunkGap }},
}

// telemetryMetrics are the gate metrics read from a point's telemetry;
// None when nothing was scraped or the scrape lacked them, so a check()
// written for them fails clearly rather than on a typo.
var telemetryMetrics = []string{"energy_per_token", "gpu_power", "gpu_utilization", "kv_cache_usage", "num_requests_waiting"}

// addTelemetry sets the telemetry metrics a point measured, each as its
// gate reads it (gpu_power the average total in W, gpu_utilization and
// kv_cache_usage in %, energy_per_token in J/token), in report units.
func addTelemetry(attrs starlark.StringDict, t *metrics.TelemetrySummary) {
	for _, name := range telemetryMetrics {
		v, err := metrics.Gate{Metric: name}.MeasureTelemetry(t)
		if err == nil {
			shown, _ := metrics.InReportUnits(name, v)
			attrs[name] = float(shown)
		}
	}
}

// addMetrics sets every metric attribute of a point; all are None when the
// point has no summary.
func addMetrics(attrs starlark.StringDict, s *metrics.Summary, costPerHour float64) {
	for _, m := range distMetrics {
		attrs[m.name] = starlark.None
		if s != nil {
			if d := m.get(s); d != nil {
				attrs[m.name] = newStatsValue(m.name, d.Scaled(m.scale))
			}
		}
	}
	for _, name := range append([]string{"output_token_throughput", "request_throughput", "request_goodput",
		"error_rate", "request_count", "completed", "failed", "duration", "achieved_request_rate",
		"mean_concurrency", "cost_per_mtok", "errors", "cache_hit_share"}, telemetryMetrics...) {
		attrs[name] = starlark.None
	}
	if s == nil {
		return
	}
	attrs["output_token_throughput"] = float(s.OutputTokenThroughput)
	attrs["request_throughput"] = float(s.RequestThroughput)
	if s.RequestGoodput != nil {
		attrs["request_goodput"] = float(*s.RequestGoodput)
	}
	if s.Completed+s.Failed > 0 {
		attrs["error_rate"] = float(s.ErrorRate)
	}
	attrs["request_count"] = integer(s.RequestCount)
	attrs["completed"], attrs["failed"] = integer(s.Completed), integer(s.Failed)
	attrs["duration"] = float(float64(s.Duration) * nsToMs)
	attrs["achieved_request_rate"] = float(s.AchievedRequestRate)
	attrs["mean_concurrency"] = float(s.MeanConcurrency)
	if cost, ok := metrics.CostPerMillionTokens(costPerHour, s.OutputTokenThroughput); ok {
		attrs["cost_per_mtok"] = float(cost)
	}
	attrs["errors"] = errorList(s.Errors)
	if c := s.PrefixCache; c != nil { // a ratio, as error_rate; None when the server reports no cached tokens
		attrs["cache_hit_share"] = float(c.Share)
	}
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
