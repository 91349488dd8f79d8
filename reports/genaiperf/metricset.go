package genaiperf

import (
	"strings"

	"github.com/llmbench/llmbench/metrics"
)

// nsToMS is GenAI-Perf's scale_data factor for time metrics. Multiplying
// every statistic by it (rather than dividing by 1e6) reproduces its
// floating-point results bit for bit: 12800000 * 1e-6 = 12.799999999999999.
const nsToMS = 1e-6

// requestMetric is one per-request metric as GenAI-Perf reports it: a
// distribution with a JSON key and a unit. The CSV and console label is
// derived from both the way GenAI-Perf derives it.
type requestMetric struct {
	key  string
	unit string
	// scale converts the native unit of metrics.Summary to the reported
	// one (ns → ms for times, 1 otherwise).
	scale float64
	// streamingOnly metrics are hidden in the CSV and console of a
	// non-streaming run (they are still in the JSON when measured).
	streamingOnly bool
	get           func(*metrics.Summary) *metrics.Distribution
}

// The per-request metrics, named as in GenAI-Perf's LLMMetrics.
var (
	mTTFT = requestMetric{"time_to_first_token", "ms", nsToMS, true,
		func(s *metrics.Summary) *metrics.Distribution { return s.TimeToFirstToken }}
	mTTST = requestMetric{"time_to_second_token", "ms", nsToMS, true,
		func(s *metrics.Summary) *metrics.Distribution { return s.TimeToSecondToken }}
	mLatency = requestMetric{"request_latency", "ms", nsToMS, false,
		func(s *metrics.Summary) *metrics.Distribution { return s.RequestLatency }}
	mITL = requestMetric{"inter_token_latency", "ms", nsToMS, true,
		func(s *metrics.Summary) *metrics.Distribution { return s.InterTokenLatency }}
	mTPSUser = requestMetric{"output_token_throughput_per_user", "tokens/sec/user", 1, true,
		func(s *metrics.Summary) *metrics.Distribution { return s.OutputTokenThroughputPerUser }}
	mOSL = requestMetric{"output_sequence_length", "tokens", 1, false,
		func(s *metrics.Summary) *metrics.Distribution { return s.OutputSequenceLength }}
	mISL = requestMetric{"input_sequence_length", "tokens", 1, false,
		func(s *metrics.Summary) *metrics.Distribution { return s.InputSequenceLength }}
	// mTTFO is llmbench's time to first output (answer) token for
	// reasoning models; GenAI-Perf has no such metric.
	mTTFO = requestMetric{"time_to_first_output_token", "ms", nsToMS, true,
		func(s *metrics.Summary) *metrics.Distribution { return s.TimeToFirstOutputToken }}
)

// dist returns the metric's distribution in the reported unit, nil when
// the run did not measure it.
func (m requestMetric) dist(s *metrics.Summary) *metrics.Distribution {
	return m.get(s).Scaled(m.scale)
}

// label is the metric's CSV and console name.
func (m requestMetric) label() string { return metricLabel(m.key, m.unit) }

// tableMetrics lists the per-request rows of GenAI-Perf's CSV and console
// table for a run, in LLMMetrics.request_metrics order: embeddings only have
// request latency, and a non-streaming run hides the streaming-only rows.
func tableMetrics(r *Run) []requestMetric {
	if !r.isLLM() {
		return []requestMetric{mLatency}
	}
	var out []requestMetric
	for _, m := range []requestMetric{mTTFT, mTTST, mLatency, mITL, mTPSUser, mOSL, mISL} {
		if m.streamingOnly && !r.Streaming {
			continue
		}
		out = append(out, m)
	}
	return out
}

// systemMetric is a per-run scalar (GenAI-Perf's system metrics): one
// value, printed as "avg".
type systemMetric struct {
	key, unit string
	value     *float64 // nil prints N/A
}

func (m systemMetric) label() string { return metricLabel(m.key, m.unit) }

// systemMetrics lists GenAI-Perf's "Metric,Value" rows in its order, with
// its units ("per sec", not "requests/sec"): output token throughput for
// LLMs, request throughput, request goodput when SLOs were given, count.
func systemMetrics(r *Run, s *metrics.Summary) []systemMetric {
	var out []systemMetric
	if r.isLLM() {
		out = append(out, systemMetric{"output_token_throughput", "tokens/sec", ptr(s.OutputTokenThroughput)})
	}
	out = append(out, systemMetric{"request_throughput", "per sec", ptr(s.RequestThroughput)})
	if r.hasGoodput() || s.RequestGoodput != nil {
		out = append(out, systemMetric{"request_goodput", "per sec", s.RequestGoodput})
	}
	return append(out, systemMetric{"request_count", "count", ptr(float64(s.RequestCount))})
}

func ptr(f float64) *float64 { return &f }

// metricLabel renders a metric name as GenAI-Perf's format_metric_name:
// name.replace("_", " ").title() followed by " (unit)".
func metricLabel(key, unit string) string {
	words := strings.Split(key, "_")
	for i, w := range words {
		if w != "" {
			words[i] = strings.ToUpper(w[:1]) + strings.ToLower(w[1:])
		}
	}
	label := strings.Join(words, " ")
	if unit != "" {
		label += " (" + unit + ")"
	}
	return label
}

// stat returns one named statistic of d ("avg", "p99", ...).
func stat(d *metrics.Distribution, name string) float64 {
	switch name {
	case "avg":
		return d.Avg
	case "min":
		return d.Min
	case "max":
		return d.Max
	case "std":
		return d.Std
	case "p1":
		return d.P1
	case "p5":
		return d.P5
	case "p10":
		return d.P10
	case "p25":
		return d.P25
	case "p50":
		return d.P50
	case "p75":
		return d.P75
	case "p90":
		return d.P90
	case "p95":
		return d.P95
	case "p99":
		return d.P99
	}
	panic("genaiperf: unknown statistic " + name)
}
