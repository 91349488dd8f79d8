package views

import (
	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
)

// aiperfStats are the statistic columns of AIPerf's console table
// (ConsoleMetricsExporter.STAT_COLUMN_KEYS).
var aiperfStats = []string{"avg", "min", "max", "p99", "p90", "p50", "std"}

// aiperfText is AIPerf's "NVIDIA AIPerf | LLM Metrics" Rich table
// (aiperf/exporters/console_metrics_exporter.py): rows in the metrics'
// display order, each "Header (unit)" (the unit on its own line for a
// header over 30 characters), values as "{:,.2f}", N/A where a metric has
// no such statistic (the per-run ones have only avg). The streaming-only
// metrics are left out of a non-streaming run, as AIPerf computes them
// only for streaming endpoints.
func aiperfText(r *genaiperf.Run, v *metrics.AIPerfView) string {
	title := "NVIDIA AIPerf | LLM Metrics"
	if r.EndpointType == "embeddings" {
		title = "NVIDIA AIPerf | Embeddings Metrics"
	}
	var rows [][]string
	dist := func(header, unit string, scale float64, d *metrics.Distribution, streamingOnly bool) {
		if d == nil || streamingOnly && !r.Streaming {
			return
		}
		d = d.Scaled(scale)
		row := []string{aiperfLabel(header, unit)}
		for _, v := range []float64{d.Avg, d.Min, d.Max, d.P99, d.P90, d.P50, d.Std} {
			row = append(row, genaiperf.PyComma2(v))
		}
		rows = append(rows, row)
	}
	scalar := func(header, unit string, v float64) {
		row := []string{aiperfLabel(header, unit), genaiperf.PyComma2(v)}
		for range aiperfStats[1:] {
			row = append(row, "N/A")
		}
		rows = append(rows, row)
	}
	const nsToMS = 1e-6 // AIPerf's ns → ms display conversion, 1000 / 1e9
	dist("Time to First Token", "ms", nsToMS, v.TimeToFirstToken, true)
	dist("Time to Second Token", "ms", nsToMS, v.TimeToSecondToken, true)
	dist("Request Latency", "ms", nsToMS, v.RequestLatency, false)
	dist("Inter Token Latency", "ms", nsToMS, v.InterTokenLatency, true)
	dist("Output Token Throughput Per User", "tokens/sec/user", 1, v.OutputTokenThroughputPerUser, true)
	dist("Output Sequence Length", "tokens", 1, v.OutputSequenceLength, false)
	dist("Input Sequence Length", "tokens", 1, v.InputSequenceLength, false)
	if v.BenchmarkDuration > 0 {
		scalar("Output Token Throughput", "tokens/sec", v.OutputTokenThroughput)
		scalar("Request Throughput", "requests/sec", v.RequestThroughput)
	}
	if v.RequestGoodput != nil {
		scalar("Goodput", "requests/sec", *v.RequestGoodput)
	}
	scalar("Request Count", "requests", float64(v.RequestCount))
	return "\n" + genaiperf.RenderTable(title, append([]string{"Metric"}, aiperfStats...), rows)
}

// aiperfLabel is AIPerf's row label: the header and its unit in
// parentheses, on a new line when the header is over 30 characters.
func aiperfLabel(header, unit string) string {
	sep := " "
	if len(header) > 30 {
		sep = "\n"
	}
	return header + sep + "(" + unit + ")"
}
