package genaiperf

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

func writeCSV(t *testing.T, r *Run, s *metrics.Summary) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCSV(&b, r, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// llmbenchCSVRows are the rows llmbench appends to the Metric,Value table.
func llmbenchCSVRows(count, rate string) string {
	return "Error Count (count)," + count + "\r\nError Rate (%)," + rate + "\r\n"
}

// TestCSVMatchesGenAIPerfExample: the LLM part of the shared example CSV
// (everything before the telemetry tables) is reproduced byte for byte,
// followed only by llmbench's two rows.
func TestCSVMatchesGenAIPerfExample(t *testing.T) {
	got := writeCSV(t, exampleRun(), exampleSummary())
	example := string(reference(t, "example_profile_export_genai_perf.csv"))
	llmPart, _, ok := strings.Cut(example, "\r\n\r\nMetric,GPU,")
	if !ok {
		t.Fatal("example has no telemetry table")
	}
	want := llmPart + "\r\n" + llmbenchCSVRows("0.00", "0.00")
	assertSameBytes(t, "csv", []byte(got), []byte(want))
}

// TestCSVMatchesGenAIPerfUnitTest reproduces test_streaming_llm_csv_output
// (genai-perf.md §3.5).
func TestCSVMatchesGenAIPerfUnitTest(t *testing.T) {
	r := DefaultRun("model_name")
	r.Streaming = true
	got := writeCSV(t, &r, exporterTestSummary())
	want := string(reference(t, "csv_streaming_llm.csv")) + llmbenchCSVRows("0.00", "0.00")
	assertSameBytes(t, "csv", []byte(got), []byte(want))
}

func TestCSVGolden(t *testing.T) {
	nonStreaming := DefaultRun("m")
	reasoning := DefaultRun("m")
	reasoning.Streaming = true
	reasoning.Goodput = []Goodput{{"request_latency", 300}}
	embeddings := DefaultRun("m")
	embeddings.EndpointType = "embeddings"
	missingTTST := exporterTestSummary()
	missingTTST.TimeToSecondToken = nil
	streaming := DefaultRun("m")
	streaming.Streaming = true
	for _, c := range []struct {
		name string
		run  Run
		sum  *metrics.Summary
	}{
		// Non-streaming hides TTFT, TTST, ITL and per-user throughput.
		{"nonstreaming.csv", nonStreaming, exporterTestSummary()},
		// TTFO row, goodput row, quoted thousands, error rows.
		{"reasoning_errors.csv", reasoning, troubledSummary()},
		// Embeddings: request latency, throughput and count only.
		{"embeddings.csv", embeddings, embeddingsTestSummary()},
		// A streaming-only metric without values prints N/A, as fetch_stat does.
		{"missing_ttst.csv", streaming, missingTTST},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkGolden(t, c.name, []byte(writeCSV(t, &c.run, c.sum)))
		})
	}
}

func TestPyCSVQuoting(t *testing.T) {
	var b bytes.Buffer
	cw := pyCSV{w: newBufWriter(&b)}
	cw.row("1,525.00", `say "hi"`, "plain", "line\nbreak", "")
	cw.row("")
	cw.row()
	if err := cw.flush(); err != nil {
		t.Fatal(err)
	}
	want := "\"1,525.00\",\"say \"\"hi\"\"\",plain,\"line\nbreak\",\r\n\"\"\r\n\r\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}

func newBufWriter(b *bytes.Buffer) *bufio.Writer { return bufio.NewWriter(b) }
