package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// GenAI-Perf's template, written by create-template and edited as a user
// edits it (model, endpoint, load, size), runs as the same flags do: the
// same prompts (inputs.json byte for byte) and the same configuration
// echoed in profile_export_genai_perf.json; flags after the file override
// it only with --override-config; an unknown key is exit 2 at its place.
func TestConfigRunsAsItsFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if r := runCLI(t, dir, "create-template"); r.code != 0 {
		t.Fatalf("create-template: exit %d\n%s", r.code, r.stderr)
	}
	if r := runCLI(t, dir, "create-template"); r.code != 2 || !strings.Contains(r.stderr, "the file exists") {
		t.Errorf("create-template over a file: exit %d\n%s", r.code, r.stderr)
	}
	tpl, err := os.ReadFile(filepath.Join(dir, "genai_perf_config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.NewReplacer(
		"  model_names: \n", "  model_names: org/m\n",
		"type: kserve", "type: chat",
		"streaming: False", "streaming: True",
		"url: localhost:8001", "url: sim://?ttft=1ms&itl=1ms",
		"stimulus: {'concurrency': 1}", "stimulus: {'concurrency': 2}",
		"      num: \n", "      num: 8\n",
		"    mean: 550", "    mean: 24",
		"artifact_directory: artifacts", "artifact_directory: fromconfig",
	).Replace(string(tpl))
	writeFileIn(t, dir, "genai_perf_config.yaml", edited)
	r := runCLI(t, dir, "config", "-f", "genai_perf_config.yaml")
	if r.code != 0 {
		t.Fatalf("config: exit %d\n%s", r.code, r.stderr)
	}
	flags := runCLI(t, dir, "profile", "-m", "org/m", "--endpoint-type", "chat", "--streaming", "-u", "sim://?ttft=1ms&itl=1ms",
		"--concurrency", "2", "--request-count", "8", "--synthetic-input-tokens-mean", "24", "--backend", "tensorrtllm", "--artifact-dir", "fromflags")
	if flags.code != 0 {
		t.Fatalf("profile: exit %d\n%s", flags.code, flags.stderr)
	}
	point := "org_m-openai-chat-concurrency2"
	read := func(root, name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, root, point, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if string(read("fromconfig", "inputs.json")) != string(read("fromflags", "inputs.json")) {
		t.Error("the configuration's prompts differ from the flags'")
	}
	echo := func(root string) string {
		var doc struct {
			InputConfig map[string]json.RawMessage `json:"input_config"`
		}
		if err := json.Unmarshal(read(root, "profile_export_genai_perf.json"), &doc); err != nil {
			t.Fatal(err)
		}
		delete(doc.InputConfig, "output") // the artifact folders differ by design
		b, _ := json.Marshal(doc.InputConfig)
		return string(b)
	}
	if a, b := echo("fromconfig"), echo("fromflags"); a != b {
		t.Errorf("input_config from the file\n%s\nfrom the flags\n%s", a, b)
	}
	if r := runCLI(t, dir, "config", "-f", "genai_perf_config.yaml", "--concurrency", "4"); r.code != 2 || !strings.Contains(r.stderr, "--override-config") {
		t.Errorf("an override without --override-config: exit %d\n%s", r.code, r.stderr)
	}
	o := runCLI(t, dir, "config", "-f", "genai_perf_config.yaml", "--override-config", "--concurrency", "4")
	if _, err := os.Stat(filepath.Join(dir, "fromconfig", "org_m-openai-chat-concurrency4")); o.code != 0 || err != nil {
		t.Errorf("--override-config --concurrency 4: exit %d, %v\n%s", o.code, err, o.stderr)
	}
	writeFileIn(t, dir, "bad.yaml", "model_names: m\nperf_analyzer:\n  stimuls: {concurrency: 2}\n")
	if r := runCLI(t, dir, "config", "-f", "bad.yaml"); r.code != 2 || !strings.Contains(r.stderr, "bad.yaml:3:3: unknown key perf_analyzer.stimuls") {
		t.Errorf("unknown key: exit %d\n%s", r.code, r.stderr)
	}
}

// scenario-from-config writes the configuration as a scenario that check
// accepts and run runs: the same endpoint (a header's value read from the
// environment, never copied), prompts, load, size, goodput and analyze
// sweep; what has no scenario setting is named on stderr and in the file.
func TestScenarioFromConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFileIn(t, dir, "c.yaml", `model_names: org/m
analyze: {concurrency: {start: 1, stop: 2}}
endpoint: {type: chat, streaming: True, url: "sim://?ttft=1ms&itl=1ms"}
perf_analyzer: {stimulus: {concurrency: 1}, warmup_request_count: 1, measurement: {mode: request_count, num: 6}}
input:
  extra: {ignore_eos: true}
  goodput: {time_to_first_token: 300}
  header: ["X-Api-Key: s3cr3t"]
  synthetic_tokens: {mean: 24, stddev: 2}
  output_tokens: {mean: 8}
  random_seed: 3
output: {profile_export_file: pe.json}
`)
	r := runCLI(t, dir, "scenario-from-config", "c.yaml", "-o", "s.star")
	if r.code != 0 {
		t.Fatalf("scenario-from-config: exit %d\n%s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "s.star"))
	if strings.Contains(string(b), "s3cr3t") || !strings.Contains(string(b), `env("LLM_HEADER_X_API_KEY", "")`) {
		t.Errorf("the header's value was copied, or is not read from the environment:\n%s", b)
	}
	check := runCLI(t, dir, "check", "s.star")
	for _, want := range []string{`model="org/m", api="chat"`, `extra={"ignore_eos": true}`, "synthetic(input_tokens=normal(24, 2), output_tokens=fixed(8))",
		"traffic:   concurrency(1)", "per point: 6 requests, warmup 1", "goodput:   time_to_first_token:300", "points (2): concurrency1, concurrency2"} {
		if check.code != 0 || !strings.Contains(check.stdout, want) {
			t.Errorf("check: exit %d, plan lacks %q\n%s%s", check.code, want, check.stdout, check.stderr)
		}
	}
	if run := runCLI(t, dir, "run", "s.star", "--no-plots"); run.code != 0 || !strings.Contains(run.stdout, "concurrency2") {
		t.Errorf("run: exit %d\n%s%s", run.code, run.stdout, run.stderr)
	}
	if again := runCLI(t, dir, "scenario-from-config", "c.yaml", "-o", "s.star"); again.code != 2 || !strings.Contains(again.stderr, "the file exists") {
		t.Errorf("over an existing file: exit %d\n%s", again.code, again.stderr)
	}
	writeFileIn(t, dir, "p.yaml", "process: {input_path: runs}\n")
	if p := runCLI(t, dir, "scenario-from-config", "p.yaml"); p.code != 2 || !strings.Contains(p.stderr, "nothing to write") {
		t.Errorf("a process-export-files configuration: exit %d\n%s", p.code, p.stderr)
	}
}
