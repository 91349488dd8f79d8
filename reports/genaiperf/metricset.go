package genaiperf

import (
	"strings"

	"github.com/llmbench/llmbench/metrics"
)

// requestMetric is one per-request metric as GenAI-Perf reports it: a
// catalogue metric, keyed by its GenAI-Perf name and scaled to report
// units statistic by statistic as GenAI-Perf's scale_data does
// (Metric.Scale: 12800000 * 1e-6 = 12.799999999999999, bit for bit), with
// GenAI-Perf's unit name. The CSV and console label is derived from both
// the way GenAI-Perf derives it.
type requestMetric struct {
	metric *metrics.Metric
	unit   string
}

// The per-request metrics, in GenAI-Perf's LLMMetrics; mTTFO is llmbench's
// time to first output (answer) token for reasoning models, which
// GenAI-Perf lacks.
var (
	mTTFT    = requestMetric{metrics.TTFT, "ms"}
	mTTST    = requestMetric{metrics.TTST, "ms"}
	mLatency = requestMetric{metrics.RequestLatency, "ms"}
	mITL     = requestMetric{metrics.ITL, "ms"}
	mTPSUser = requestMetric{metrics.OutputTokenThroughputPerUser, "tokens/sec/user"}
	mOSL     = requestMetric{metrics.OSL, "tokens"}
	mISL     = requestMetric{metrics.ISL, "tokens"}
	mTTFO    = requestMetric{metrics.TTFO, "ms"}
)

// llmbench's additions to GenAI-Perf's JSON: the open-loop latencies and
// the per-chunk gaps.
var (
	mScheduleLag         = requestMetric{metrics.ScheduleLag, "ms"}
	mTTFTFromSchedule    = requestMetric{metrics.TTFTFromSchedule, "ms"}
	mLatencyFromSchedule = requestMetric{metrics.RequestLatencyFromSchedule, "ms"}
	mChunkGap            = requestMetric{metrics.ChunkGap, "ms"}
)

// key is the metric's JSON key.
func (m requestMetric) key() string { return m.metric.GenAIPerfName() }

// streamingOnly metrics are hidden in the CSV and console of a
// non-streaming run (they are still in the JSON when measured).
func (m requestMetric) streamingOnly() bool { return m.metric.Need == metrics.NeedStreaming }

// dist returns the metric's distribution in the reported unit, nil when
// the run did not measure it.
func (m requestMetric) dist(s *metrics.Summary) *metrics.Distribution {
	return m.metric.Distribution(s).Scaled(m.metric.Scale())
}

// label is the metric's CSV and console name.
func (m requestMetric) label() string { return metricLabel(m.key(), m.unit) }

// tableMetrics lists the per-request rows of GenAI-Perf's CSV and console
// table for a run, in LLMMetrics.request_metrics order: embeddings only have
// request latency, and a non-streaming run hides the streaming-only rows.
func tableMetrics(r *Run) []requestMetric {
	if r.isImageRetrieval() {
		return []requestMetric{mLatency, mImageThroughput, mImageLatency}
	}
	if !r.isLLM() {
		return []requestMetric{mLatency}
	}
	var out []requestMetric
	for _, m := range []requestMetric{mTTFT, mTTST, mLatency, mITL, mTPSUser, mOSL, mISL} {
		if m.streamingOnly() && !r.Streaming {
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
