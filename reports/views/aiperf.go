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
// display order (genAIPerfMetrics'), each "Header (unit)" (the unit on its own line for a
// header over 30 characters), values as "{:,.2f}", N/A where a metric has
// no such statistic (the per-run ones have only avg). The metrics that
// need streaming (Metric.Need) are left out of a non-streaming run, as
// AIPerf computes them only for streaming endpoints.
func aiperfText(r *genaiperf.Run, v *metrics.AIPerfView) string {
	title := "NVIDIA AIPerf | LLM Metrics"
	if r.EndpointType == "embeddings" {
		title = "NVIDIA AIPerf | Embeddings Metrics"
	}
	var rows [][]string
	scalar := func(header, unit string, v float64) {
		row := []string{aiperfLabel(header, unit), genaiperf.PyComma2(v)}
		for range aiperfStats[1:] {
			row = append(row, "N/A")
		}
		rows = append(rows, row)
	}
	s := v.Summary()
	for _, g := range genAIPerfMetrics {
		m := g.metric
		if m.Kind != metrics.PerRequest {
			if value, ok := m.Value(s); ok && v.BenchmarkDuration > 0 {
				scalar(g.aiperfHeader, g.unit, value*m.Scale())
			}
			continue
		}
		d := m.Distribution(s)
		if d == nil || m.Need == metrics.NeedStreaming && !r.Streaming {
			continue
		}
		d = d.Scaled(m.Scale())
		row := []string{aiperfLabel(g.aiperfHeader, g.unit)}
		for _, v := range []float64{d.Avg, d.Min, d.Max, d.P99, d.P90, d.P50, d.Std} {
			row = append(row, genaiperf.PyComma2(v))
		}
		rows = append(rows, row)
	}
	if goodput, ok := metrics.RequestGoodput.Value(s); ok {
		scalar("Goodput", "requests/sec", goodput)
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
