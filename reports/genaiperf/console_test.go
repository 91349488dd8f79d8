package genaiperf

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

func writeConsole(t *testing.T, r *Run, s *metrics.Summary) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteConsole(&b, r, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestConsoleMatchesGenAIPerf renders GenAI-Perf's console unit-test cases
// (genai-perf.md §4) and requires the table to equal, byte for byte, what
// Rich prints for them; llmbench's lines follow the table.
func TestConsoleMatchesGenAIPerf(t *testing.T) {
	streaming := DefaultRun("model_name")
	streaming.Streaming = true
	nonStreaming := DefaultRun("model_name")
	goodput := streaming
	goodput.Goodput = []Goodput{{"request_latency", 100}}
	withGoodput := exporterTestSummary()
	g := 100.0
	withGoodput.RequestGoodput = &g
	embeddings := DefaultRun("model_name")
	embeddings.EndpointType = "embeddings"
	for _, c := range []struct {
		reference string
		run       Run
		sum       *metrics.Summary
	}{
		{"console_streaming_llm.txt", streaming, exporterTestSummary()},
		{"console_nonstreaming_llm.txt", nonStreaming, exporterTestSummary()},
		{"console_goodput_llm.txt", goodput, withGoodput},
		{"console_embeddings.txt", embeddings, embeddingsTestSummary()},
	} {
		t.Run(c.reference, func(t *testing.T) {
			got := writeConsole(t, &c.run, c.sum)
			table := reference(t, c.reference)
			if !strings.HasPrefix(got, string(table)) {
				assertSameBytes(t, "table", []byte(got[:min(len(got), len(table))]), table)
			}
			rest := got[len(table):]
			if !strings.HasPrefix(rest, "Requests: 3 completed, 0 failed, error rate 0.00%\n") {
				t.Errorf("llmbench lines after the table: %q", rest)
			}
		})
	}
}

// TestConsoleAdditions pins llmbench's lines for a troubled open-loop run
// and a closed-loop one.
func TestConsoleAdditions(t *testing.T) {
	open := DefaultRun("m")
	open.Streaming = true
	open.Stimulus = Stimulus{RequestRate: 10}
	open.RequestDistribution = "poisson"
	checkGolden(t, "console_open_loop.txt", []byte(writeConsole(t, &open, troubledSummary())))

	closed := DefaultRun("m")
	closed.Streaming = true
	closed.Stimulus = Stimulus{Concurrency: 4}
	closed.TokenCounting = "chunks"
	s := troubledSummary()
	s.ScheduleLag, s.TimeToFirstOutputToken, s.Errors = nil, nil, nil
	s.TTFTFromSchedule, s.RequestLatencyFromSchedule = nil, nil
	checkGolden(t, "console_closed_loop.txt", []byte(writeConsole(t, &closed, s)))
}

func TestFill(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  string
	}{
		{"Output Token Throughput Per User (tokens/sec/user)", 36, "Output Token Throughput Per User\n(tokens/sec/user)"},
		{"Output Token Throughput (tokens/sec)", 36, "Output Token Throughput (tokens/sec)"},
		{"Request Latency (ms)", 36, "Request Latency (ms)"},
		// textwrap.fill("ab abcdefghij", width=5) == "ab ab\ncdefg\nhij"
		{"ab abcdefghij", 5, "ab ab\ncdefg\nhij"},
		// textwrap.fill("  a   b  ", width=3) == "  a\nb"
		{"  a   b  ", 3, "  a\nb"},
		{"", 5, ""},
	} {
		if got := fill(c.in, c.width); got != c.want {
			t.Errorf("fill(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}
