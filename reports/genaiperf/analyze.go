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
// GenAI-Perf's second table, GPU telemetry per config, follows only when
// telemetry was collected; llmbench does not collect it yet, so the table
// and the blank row before it are left out rather than written empty.
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
	return cw.flush()
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
