package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// profile --endpoint-type huggingface_generate|generate against the
// simulator: GenAI-Perf's names map to the TGI and KServe APIs, the
// artifacts are written under the type as given, inputs.json holds the
// API's body, and the metrics are right — every request complete, OSL 20
// (TGI: by the server's details; KServe, which reports no usage: by
// chunks, one token each), TTFT at least the sim's 20 ms.
func TestProfileTGIAndKServe(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ typ, body, counting, path string }{
		{"huggingface_generate", `"max_new_tokens": 20`, "usage", "generate_stream"},
		{"generate", `"text_input"`, "chunks", "v2/models/org%2Fmodel/generate_stream"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			dir := t.TempDir()
			r := runCLI(t, dir, "profile", "-m", "org/model", "-u", "sim://?itl=1ms&ttft=20ms",
				"--endpoint-type", tc.typ, "--streaming", "--concurrency", "2", "--request-count", "10",
				"--synthetic-input-tokens-mean", "50", "--output-tokens-mean", "20")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			run := filepath.Join(dir, "artifacts", "org_model-openai-"+tc.typ+"-concurrency2")
			m := genaiPerfJSON(t, run)
			if got := m["request_count"]["avg"]; got != 10.0 {
				t.Errorf("request_count = %v, want 10", got)
			}
			if got := m["output_sequence_length"]["avg"]; got != 20.0 {
				t.Errorf("OSL avg = %v, want 20", got)
			}
			if got := m["input_sequence_length"]["avg"]; tc.counting == "usage" && got != 50.0 {
				t.Errorf("ISL avg = %v, want 50", got)
			}
			if got, _ := m["time_to_first_token"]["min"].(float64); got < 20 {
				t.Errorf("TTFT min = %v ms, want >= 20 (the sim's ttft)", got)
			}
			if own := m["llmbench"]; own["token_counting"] != tc.counting {
				t.Errorf("token_counting %v, want %s", own["token_counting"], tc.counting)
			}
			inputs, err := os.ReadFile(filepath.Join(run, "inputs.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(inputs), tc.body) {
				t.Errorf("inputs.json has no %s:\n%.600s", tc.body, inputs)
			}
			export, err := os.ReadFile(filepath.Join(run, "profile_export_genai_perf.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(export), `"type": "`+tc.typ+`"`) || !strings.Contains(string(export), tc.path) {
				t.Errorf("input_config does not name endpoint type %s and path %s", tc.typ, tc.path)
			}
		})
	}
}

// GenAI-Perf's kserve endpoint type is Triton's gRPC API (see
// triton_test.go), so an HTTP URL with it is refused naming the HTTP API;
// several models cannot share one KServe generate path.
func TestProfileRefusesKServeGRPC(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "m", "-u", "http://localhost:8000", "--endpoint-type", "kserve", "--request-count", "1")
	if r.code != 2 || !strings.Contains(r.stderr, `http(s) is Triton's HTTP API, which api="kserve" speaks`) {
		t.Errorf("kserve: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, dir, "profile", "-m", "a", "b", "-u", "sim://", "--endpoint-type", "generate", "--request-count", "1")
	if r.code != 2 || !strings.Contains(r.stderr, "got 2 models") {
		t.Errorf("generate with two models: exit %d\n%s", r.code, r.stderr)
	}
}

// Scenarios with api="tgi" and api="kserve", streamed and whole, run
// against the simulator: TTFT from the first token, OSL 12 by TGI's
// details and by KServe's chunks (auto without a tokenizer counts chunks
// there, since Triton reports no usage; a whole answer is one chunk).
func TestRunTGIAndKServeScenarios(t *testing.T) {
	t.Parallel()
	for _, api := range []string{"tgi", "kserve"} {
		for _, stream := range []string{"True", "False"} {
			t.Run(api+"-stream="+stream, func(t *testing.T) {
				dir := t.TempDir()
				osl := "12"
				if api == "kserve" && stream == "False" {
					osl = "1" // a whole answer is one chunk: exact OSL needs a tokenizer
				}
				gates := `"error_rate < 1%", "osl.avg == ` + osl + `"`
				if stream == "True" {
					gates += `, "ttft.min >= 5"`
				}
				scenario := `
target = endpoint(url = "sim://?ttft=5ms&itl=1ms", model = "m", api = "` + api + `", stream = ` + stream + `)
def main(ctx):
    return experiment(name = "gen", endpoint = target,
        dataset = synthetic(input_tokens = fixed(30), output_tokens = fixed(12)),
        traffic = concurrency(2), requests = 8, gates = [` + gates + `])
`
				if err := os.WriteFile(filepath.Join(dir, "s.star"), []byte(scenario), 0o644); err != nil {
					t.Fatal(err)
				}
				r := runCLI(t, dir, "run", "s.star", "--out", "out")
				if r.code != 0 {
					t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
				}
			})
		}
	}
}
