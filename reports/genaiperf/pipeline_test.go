package genaiperf

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// TestPipelineReproducesExample runs the example's records through
// metrics.Summarize and this package's writers, and requires GenAI-Perf's
// own JSON statistics and CSV back, byte for byte: the whole chain from
// records to artifacts, not only the writers.
func TestPipelineReproducesExample(t *testing.T) {
	recs, _ := exampleRecords()
	recs[0].InputTokens, recs[0].OutputTokens = 3, 3 // whitespace tokenizer of the example
	recs[1].InputTokens, recs[1].OutputTokens = 4, 6
	var slos []metrics.SLO
	for _, spec := range []string{"time_to_first_token:5", "request_latency:13"} {
		slo, err := metrics.ParseGoodput(spec)
		if err != nil {
			t.Fatal(err)
		}
		slos = append(slos, slo)
	}
	s := metrics.Summarize(recs, metrics.Options{Goodput: slos})

	var js, csv bytes.Buffer
	if err := WriteJSON(&js, exampleRun(), &s); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&csv, exampleRun(), &s); err != nil {
		t.Fatal(err)
	}
	wantJSON, _, _ := strings.Cut(string(reference(t, "example_profile_export_genai_perf.json")), `"telemetry_stats"`)
	gotJSON, _, _ := strings.Cut(js.String(), `"error_count"`)
	assertSameBytes(t, "json statistics", []byte(gotJSON), []byte(wantJSON))

	wantCSV, _, _ := strings.Cut(string(reference(t, "example_profile_export_genai_perf.csv")), "\r\n\r\nMetric,GPU,")
	assertSameBytes(t, "csv", csv.Bytes(), []byte(wantCSV+"\r\n"+llmbenchCSVRows("0.00", "0.00")))
}
