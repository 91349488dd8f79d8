package genaiperf

import (
	"bufio"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/llmbench/llmbench/metrics"
)

// AnalyzeRow is one point of an analyze sweep as analyze_export_genai_perf.csv
// lists it.
type AnalyzeRow struct {
	// ConfigName is GenAI-Perf's "<model>_run_config_<n>", n counting
	// points in the order they were first measured.
	ConfigName string
	// Load is the point's concurrency or request rate (the fixed one of an
	// input_sequence_length sweep).
	Load float64
	// NumDatasetEntries is --num-dataset-entries, echoed as GenAI-Perf does.
	NumDatasetEntries int
	Summary           *metrics.Summary
	// Telemetry is the point's GPU telemetry, nil when none was scraped.
	Telemetry *metrics.TelemetrySummary
}

// analyzeMetrics are the metric columns after the stimulus columns, in
// GenAI-Perf's order (subcommand/analyze.py PERF_METRICS_HEADER), each
// read from the summary in the unit of its header.
var analyzeMetrics = []struct {
	header string
	value  func(*metrics.Summary) (float64, bool)
}{
	{"p99 Time To First Token (ms)", p99Of(mTTFT)},
	{"p99 Inter Token Latency (ms)", p99Of(mITL)},
	{"p99 Request Latency (ms)", p99Of(mLatency)},
	{"p99 Output Sequence Length (tokens)", p99Of(mOSL)},
	{"Avg. Output Token Throughput (tokens/sec)", func(s *metrics.Summary) (float64, bool) { return s.OutputTokenThroughput, true }},
	{"Request Throughput (requests/sec)", func(s *metrics.Summary) (float64, bool) { return s.RequestThroughput, true }},
}

func p99Of(m requestMetric) func(*metrics.Summary) (float64, bool) {
	return func(s *metrics.Summary) (float64, bool) {
		if d := m.dist(s); d != nil {
			return d.P99, true
		}
		return 0, false
	}
}

// WriteAnalyzeCSV writes analyze_export_genai_perf.csv as GenAI-Perf's
// analyze does (csv.writer, CRLF): a header naming the load column
// "Request Rate" for a request-rate sweep and "Concurrency" otherwise, then
// one row per point with int(p99 ISL), the dataset size and the metrics as
// f"{x:.2f}" (no thousands separator here, unlike the profile CSV), a
// metric the point did not measure being 0.00.
//
// Rows come in GenAI-Perf's order, not run order: its results list is kept
// sorted best first by its default objective, request throughput, with
// equal throughputs in run order. Scripts that take the first row as the
// best configuration keep working.
//
// GenAI-Perf's second table, GPU telemetry per config (analyzeGPUTable),
// follows after a blank row only when some point has GPU telemetry.
func WriteAnalyzeCSV(w io.Writer, requestRate bool, rows []AnalyzeRow) error {
	cw := pyCSV{w: bufio.NewWriter(w)}
	header := []string{"Config Name", "Concurrency", "ISL", "Num Dataset Entries"}
	if requestRate {
		header[1] = "Request Rate"
	}
	for _, m := range analyzeMetrics {
		header = append(header, m.header)
	}
	cw.row(header...)
	for _, r := range bestFirst(rows) {
		isl := 0.0
		if d := r.Summary.InputSequenceLength; d != nil {
			isl = math.Trunc(d.P99) // Python's int()
		}
		cells := []string{r.ConfigName, loadCell(r.Load), strconv.FormatFloat(isl, 'f', 0, 64), strconv.Itoa(r.NumDatasetEntries)}
		for _, m := range analyzeMetrics {
			v, _ := m.value(r.Summary)
			cells = append(cells, strconv.FormatFloat(v, 'f', 2, 64))
		}
		cw.row(cells...)
	}
	writeAnalyzeGPUTable(&cw, bestFirst(rows))
	return cw.flush()
}

// analyzeGPUColumns are the second table's columns after Config Name and
// GPU: a statistic of a DCGM field, in GenAI-Perf's order.
var analyzeGPUColumns = []struct {
	header, field, stat string
}{
	{"p99 GPU Power Usage (W)", "gpu_power_usage", "p99"},
	{"p99 GPU Energy Consumption (MJ)", "energy_consumption", "p99"},
	{"p99 GPU Utilization (%)", "gpu_utilization", "p99"},
	{"p99 GPU Memory Used (GB)", "gpu_memory_used", "p99"},
	{"Avg. GPU Power Limit (W)", "gpu_power_limit", "avg"},
	{"Avg. GPU Total Memory (GB)", "total_gpu_memory", "avg"},
}

// writeAnalyzeGPUTable writes the GPU table: for each GPU (by GenAI-Perf
// key, in first-seen order), a row per config holding it, a statistic the
// GPU lacks being 0.00 as GenAI-Perf writes it.
func writeAnalyzeGPUTable(cw *pyCSV, rows []AnalyzeRow) {
	var keys []string
	for _, r := range rows {
		if r.Telemetry == nil {
			continue
		}
		for _, g := range r.Telemetry.GPUs {
			if !slices.Contains(keys, g.GenAIPerfKey) {
				keys = append(keys, g.GenAIPerfKey)
			}
		}
	}
	if len(keys) == 0 {
		return
	}
	cw.row()
	header := []string{"Config Name", "GPU"}
	for _, c := range analyzeGPUColumns {
		header = append(header, c.header)
	}
	cw.row(header...)
	for _, key := range keys {
		for _, r := range rows {
			if g := gpuByKey(r.Telemetry, key); g != nil {
				cells := []string{r.ConfigName, key}
				for _, c := range analyzeGPUColumns {
					v := 0.0
					if d := g.Field(c.field); d != nil {
						v = stat(d, c.stat)
					}
					cells = append(cells, strconv.FormatFloat(v, 'f', 2, 64))
				}
				cw.row(cells...)
			}
		}
	}
}

func gpuByKey(t *metrics.TelemetrySummary, key string) *metrics.GPUTelemetry {
	if t == nil {
		return nil
	}
	for i := range t.GPUs {
		if t.GPUs[i].GenAIPerfKey == key {
			return &t.GPUs[i]
		}
	}
	return nil
}

// bestFirst orders rows by request throughput, highest first, keeping run
// order among equals (Python's stable sort with reverse=True).
func bestFirst(rows []AnalyzeRow) []AnalyzeRow {
	sorted := slices.Clone(rows)
	slices.SortStableFunc(sorted, func(a, b AnalyzeRow) int {
		x, y := a.Summary.RequestThroughput, b.Summary.RequestThroughput
		switch {
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	})
	return sorted
}

// loadCell writes the load as GenAI-Perf's int(...) does for whole values;
// a fractional request rate, which GenAI-Perf cannot sweep, keeps its
// fraction rather than being truncated to a wrong number.
func loadCell(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
