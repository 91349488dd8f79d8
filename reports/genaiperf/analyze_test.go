package genaiperf

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// analyzeSummary is a point with the given p99s (ms for times) and
// throughputs; an ISL p99 of 0 leaves ISL unmeasured.
func analyzeSummary(ttft, itl, latency, osl, isl, tokPerSec, reqPerSec float64) *metrics.Summary {
	p99 := func(v float64) *metrics.Distribution {
		return &metrics.Distribution{Count: 1, Avg: v, Min: v, Max: v, P99: v}
	}
	s := &metrics.Summary{
		TimeToFirstToken: p99(ttft * 1e6), InterTokenLatency: p99(itl * 1e6), RequestLatency: p99(latency * 1e6),
		OutputSequenceLength: p99(osl), OutputTokenThroughput: tokPerSec, RequestThroughput: reqPerSec,
	}
	if isl > 0 {
		s.InputSequenceLength = p99(isl)
	}
	return s
}

// The header and the row of GenAI-Perf's own analyze CSV (reference
// genai-perf.md §3.6, from subcommand/analyze.py) come out byte for byte.
func TestAnalyzeCSVMatchesGenAIPerfRow(t *testing.T) {
	var b bytes.Buffer
	rows := []AnalyzeRow{{ConfigName: "gpt2_run_config_2", Load: 1, NumDatasetEntries: 200,
		Summary: analyzeSummary(33.54, 7.16, 779.75, 132.1, 201.96, 149.63, 1.32)}}
	if err := WriteAnalyzeCSV(&b, false, rows); err != nil {
		t.Fatal(err)
	}
	want := "Config Name,Concurrency,ISL,Num Dataset Entries,p99 Time To First Token (ms),p99 Inter Token Latency (ms)," +
		"p99 Request Latency (ms),p99 Output Sequence Length (tokens),Avg. Output Token Throughput (tokens/sec)," +
		"Request Throughput (requests/sec)\r\n" +
		"gpt2_run_config_2,1,201,200,33.54,7.16,779.75,132.10,149.63,1.32\r\n"
	assertSameBytes(t, "analyze csv", b.Bytes(), []byte(want))
}

// A sweep's rows: GenAI-Perf's best-first order (request throughput, ties
// in run order), 0.00 and ISL 0 for what a point did not measure, no
// thousands separator, a comma in a model name quoted, and the Request
// Rate header for a rate sweep.
func TestAnalyzeCSVGolden(t *testing.T) {
	nonStreaming := &metrics.Summary{RequestLatency: &metrics.Distribution{Count: 2, P99: 1234567890}, RequestThroughput: 3.5}
	rows := []AnalyzeRow{
		{ConfigName: "org/m_run_config_0", Load: 1, NumDatasetEntries: 100, Summary: analyzeSummary(10, 2, 120, 64, 128.9, 500, 7.75)},
		{ConfigName: "org/m_run_config_1", Load: 2, NumDatasetEntries: 100, Summary: analyzeSummary(11.005, 2.5, 130, 64, 128, 1234.5678, 15.5)},
		{ConfigName: "org/m_run_config_2", Load: 4, NumDatasetEntries: 100, Summary: analyzeSummary(40, 3, 200, 64, 0, 1300, 15.5)},
		{ConfigName: "a,b_run_config_3", Load: 0.5, NumDatasetEntries: 100, Summary: nonStreaming},
	}
	var conc, rate bytes.Buffer
	if err := WriteAnalyzeCSV(&conc, false, rows); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "analyze_export_genai_perf.csv", conc.Bytes())
	if err := WriteAnalyzeCSV(&rate, true, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rate.String(), "Config Name,Request Rate,ISL,") {
		t.Errorf("rate sweep header: %q", strings.SplitN(rate.String(), "\r\n", 2)[0])
	}
	lines := strings.Split(strings.TrimSuffix(conc.String(), "\r\n"), "\r\n")
	var order []string
	for _, l := range lines[1:] {
		order = append(order, strings.SplitN(strings.TrimPrefix(l, `"`), "_run_config_", 2)[1][:1])
	}
	if got := strings.Join(order, ""); got != "1203" {
		t.Errorf("row order by config id = %s, want 1203 (best request throughput first, ties in run order)", got)
	}
}

// An empty sweep (interrupted before its first point ended) still writes
// the header, so readers find a well-formed file.
func TestAnalyzeCSVEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := WriteAnalyzeCSV(&b, false, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Count(b.String(), "\r\n") != 1 || !strings.HasPrefix(b.String(), "Config Name,Concurrency,") {
		t.Errorf("empty CSV = %q", b.String())
	}
}
