package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// profile --endpoint-type responses|messages against the simulator: the
// GenAI-Perf artifacts are written under the endpoint type as given, the
// bodies in inputs.json have the API's shape, and the metrics are right —
// every request complete, OSL 20 and ISL 50 by the server's usage, TTFT
// at least the sim's 20 ms (the first content chunk, not response.created
// or message_start, which come at once) and the reasoning tokens counted
// as output.
func TestProfileResponsesAndMessages(t *testing.T) {
	t.Parallel()
	for _, api := range []struct{ name, limit string }{{"responses", `"max_output_tokens": 20`}, {"messages", `"max_tokens": 20`}} {
		t.Run(api.name, func(t *testing.T) {
			dir := t.TempDir()
			r := runCLI(t, dir, "profile", "-m", "org/model", "-u", "sim://?itl=1ms&ttft=20ms&reasoning=true&reasoning_tokens=3",
				"--endpoint-type", api.name, "--streaming", "--concurrency", "2", "--request-count", "10",
				"--synthetic-input-tokens-mean", "50", "--output-tokens-mean", "20", "--api-key", "k-123")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			run := filepath.Join(dir, "artifacts", "org_model-openai-"+api.name+"-concurrency2")
			m := genaiPerfJSON(t, run)
			if got := m["request_count"]["avg"]; got != 10.0 {
				t.Errorf("request_count = %v, want 10", got)
			}
			if got := m["output_sequence_length"]["avg"]; got != 20.0 {
				t.Errorf("OSL avg = %v, want 20", got)
			}
			if got := m["input_sequence_length"]["avg"]; got != 50.0 {
				t.Errorf("ISL avg = %v, want 50", got)
			}
			if got, _ := m["time_to_first_token"]["min"].(float64); got < 20 {
				t.Errorf("TTFT min = %v ms, want >= 20 (the sim's ttft)", got)
			}
			if own := m["llmbench"]; own["token_counting"] != "usage" {
				t.Errorf("token_counting %v, want usage", own["token_counting"])
			}
			inputs, err := os.ReadFile(filepath.Join(run, "inputs.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(inputs), api.limit) {
				t.Errorf("inputs.json has no %s:\n%.600s", api.limit, inputs)
			}
			export, err := os.ReadFile(filepath.Join(run, "profile_export_genai_perf.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(export), `"type": "`+api.name+`"`) {
				t.Errorf("input_config does not name endpoint type %s", api.name)
			}
			if strings.Contains(string(export)+r.stdout+r.stderr, "k-123") {
				t.Error("the API key reached an artifact or the console")
			}
		})
	}
}

// A scenario with api="messages" runs against the simulator with usage
// token counting, and one with an extra key the API refuses is exit 2
// from check, before any traffic.
func TestRunMessagesScenario(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scenario := `
target = endpoint(url = "sim://?ttft=5ms&itl=1ms", model = "m", api = "messages", token_count = "usage")
def main(ctx):
    return experiment(name = "msgs", endpoint = target,
        dataset = synthetic(input_tokens = fixed(30), output_tokens = fixed(12)),
        traffic = concurrency(2), requests = 8, gates = ["error_rate < 1%", "osl.avg == 12"])
`
	if err := os.WriteFile(filepath.Join(dir, "s.star"), []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "run", "s.star", "--out", "out")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	bad := strings.Replace(scenario, `token_count = "usage"`, `extra = {"max_output_tokens": 5}`, 1)
	if err := os.WriteFile(filepath.Join(dir, "bad.star"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, dir, "check", "bad.star")
	if r.code != 2 || !strings.Contains(r.stderr, `which api="messages" does not take; use max_tokens`) {
		t.Errorf("check: exit %d\n%s", r.code, r.stderr)
	}
}
