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

// TestInputConfigMatchesGenAIPerfFlags: for -m a b with
// --model-selection-strategy random, --tokenizer-revision and
// --tokenizer-trust-remote-code, input_config is byte-identical to what
// GenAI-Perf's own config code builds for the same flags
// (oracle/input_config.py), while llmbench's block says no tokenizer was
// loaded instead of echoing GenAI-Perf's default, the first model.
func TestInputConfigMatchesGenAIPerfFlags(t *testing.T) {
	r := DefaultRun("org/a", "other/b")
	r.ModelSelection = "random"
	r.Streaming = true
	r.Stimulus = Stimulus{Concurrency: 4}
	r.RequestCount = 20
	r.TokenizerRevision, r.TokenizerTrustRemoteCode = "v2", true
	r.TokenCounting = "usage"
	got := writeJSON(t, &r, exporterTestSummary())
	want := string(reference(t, "input_config_multi_model.json"))
	assertSameBytes(t, "input_config", []byte(block(t, got, "input_config")), []byte(block(t, want, "input_config")))
	if !strings.Contains(block(t, got, "llmbench"), `"tokenizer": "none",`) {
		t.Errorf("llmbench block does not say no tokenizer was loaded:\n%s", block(t, got, "llmbench"))
	}
	r.Tokenizer, r.Backend = "./tokenizer.json", "vllm"
	got = writeJSON(t, &r, exporterTestSummary())
	for section, want := range map[string]string{"input_config": `"name": "./tokenizer.json"`, "llmbench": `"tokenizer": "./tokenizer.json"`} {
		if !strings.Contains(block(t, got, section), want) {
			t.Errorf("%s lacks %s", section, want)
		}
	}
	if !strings.Contains(block(t, got, "input_config"), `"backend": "vllm"`) {
		t.Errorf("input_config does not echo --backend vllm")
	}
}

func TestJSONEmbeddings(t *testing.T) {
	r := DefaultRun("BAAI/bge-small-en")
	r.EndpointType = "embeddings"
	r.Tokenizer = "BAAI/bge-small-en"
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
