package genaiperf

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

func writeJSON(t *testing.T, r *Run, s *metrics.Summary) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJSON(&b, r, s); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b.Bytes()) {
		t.Fatalf("WriteJSON produced invalid JSON:\n%s", b.String())
	}
	return b.String()
}

// TestJSONMatchesGenAIPerfExample feeds the Summary behind the shared
// example file and requires GenAI-Perf's statistics part — everything from
// the top through input_sequence_length — and its input_config block to be
// byte-identical to the file GenAI-Perf wrote.
func TestJSONMatchesGenAIPerfExample(t *testing.T) {
	got := writeJSON(t, exampleRun(), exampleSummary())
	want := string(reference(t, "example_profile_export_genai_perf.json"))

	wantStats, _, ok := strings.Cut(want, `"telemetry_stats"`)
	if !ok {
		t.Fatal("example has no telemetry_stats")
	}
	gotStats, _, _ := strings.Cut(got, `"error_count"`)
	assertSameBytes(t, "statistics", []byte(gotStats), []byte(wantStats))

	assertSameBytes(t, "input_config", []byte(block(t, got, "input_config")), []byte(block(t, want, "input_config")))
	checkGolden(t, "example_genai_perf.json", []byte(got))
}

// block returns the text of top-level key k's value (indent 2 layout).
func block(t *testing.T, doc, k string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n  \""+k+"\": ")
	if !ok {
		t.Fatalf("no top-level key %q", k)
	}
	end := strings.Index(rest, "\n  }")
	return rest[:end+4]
}

// TestJSONLlmbenchAdditions pins the order and shape of what llmbench adds
// (error_count, error_rate, time_to_first_output_token after
// input_sequence_length; the llmbench block last), for a non-streaming
// open-loop run with failures and every optional field set.
func TestJSONLlmbenchAdditions(t *testing.T) {
	r := DefaultRun("meta-llama/Llama-3.1-8B-Instruct", "other/model")
	r.Stimulus = Stimulus{RequestRate: 10}
	r.RequestDistribution = "poisson"
	r.RequestCount = 200
	r.WarmupRequestCount = 20
	r.Goodput = []Goodput{{"inter_token_latency", 50}}
	r.ExtraInputs = []Field{{"ignore_eos", json.RawMessage(`true`)}, {"temperature", json.RawMessage(`0.7`)},
		{"stop", json.RawMessage(`["\n\n", "ü"]`)}, {"bad", json.RawMessage(`{oops`)}}
	r.OutputTokens = OutputTokens{Mean: 100, Stddev: 5, Deterministic: true}
	r.InputFile = "prompts.jsonl"
	r.TokenCounting = "usage"
	r.URL = "http://127.0.0.1:8000"
	got := writeJSON(t, &r, troubledSummary())

	keys := topLevelKeys(t, got)
	wantKeys := "request_throughput request_latency request_goodput request_count time_to_first_token " +
		"time_to_second_token inter_token_latency output_token_throughput output_token_throughput_per_user " +
		"output_sequence_length input_sequence_length error_count error_rate time_to_first_output_token input_config llmbench"
	if strings.Join(keys, " ") != wantKeys {
		t.Errorf("top-level keys:\n got %v\nwant %s", keys, wantKeys)
	}
	checkGolden(t, "additions_genai_perf.json", []byte(got))
}

func TestJSONEmbeddings(t *testing.T) {
	r := DefaultRun("BAAI/bge-small-en")
	r.EndpointType = "embeddings"
	got := writeJSON(t, &r, embeddingsTestSummary())
	keys := strings.Join(topLevelKeys(t, got), " ")
	if want := "request_throughput request_latency request_count error_count error_rate input_config llmbench"; keys != want {
		t.Errorf("keys = %s, want %s", keys, want)
	}
	checkGolden(t, "embeddings_genai_perf.json", []byte(got))
}

// TestJSONOmitsUnmeasured: a nil distribution is left out, as GenAI-Perf
// leaves out a metric with no values (non-streaming: no TTST, ITL, TPS).
func TestJSONOmitsUnmeasured(t *testing.T) {
	s := exporterTestSummary()
	s.TimeToSecondToken, s.InterTokenLatency, s.OutputTokenThroughputPerUser = nil, nil, nil
	r := exampleRun()
	got := writeJSON(t, r, s)
	for _, k := range []string{"time_to_second_token", "inter_token_latency", "output_token_throughput_per_user", "request_goodput", "time_to_first_output_token"} {
		if strings.Contains(got, `"`+k+`": {`) {
			t.Errorf("%s present although not measured", k)
		}
	}
}

// topLevelKeys lists the document's top-level keys in order.
func topLevelKeys(t *testing.T, doc string) []string {
	t.Helper()
	var keys []string
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, `  "`) {
			k, _, _ := strings.Cut(line[3:], `"`)
			keys = append(keys, k)
		}
	}
	return keys
}
