package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// process-export-files aggregates two runs, each in its own subfolder as
// two machines wrote them: the merged export holds both runs' requests,
// the statistics are the union's (as report computes them from that
// export), the throughputs are the sums of the runs' own, and the
// folder is named by the model and load as GenAI-Perf names it.
func TestProcessExportFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, node := range []string{"n1", "n2"} {
		r := runCLI(t, dir, "profile", "-m", "org/m", "-u", "sim://?ttft=2ms&itl=1ms", "--endpoint-type", "chat", "--streaming",
			"--synthetic-input-tokens-mean", "16", "--output-tokens-mean", "8", "--request-count", "12", "--concurrency", "2",
			"--artifact-dir", filepath.Join("runs", node))
		if r.code != 0 {
			t.Fatalf("profile: exit %d\n%s", r.code, r.stderr)
		}
		point := filepath.Join(dir, "runs", node, "org_m-openai-chat-concurrency2")
		if err := os.Rename(point, filepath.Join(dir, "in", node)); err != nil {
			t.Fatal(err)
		}
	}
	r := runCLI(t, dir, "process-export-files", "-d", "in", "--artifact-dir", "agg")
	if r.code != 0 || !strings.Contains(r.stdout, "Aggregated 2 runs") {
		t.Fatalf("process-export-files: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(dir, "agg", "org_m-openai-chat-concurrency2")
	stats := func(path string) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	avg := func(m map[string]json.RawMessage, key string) float64 {
		var v struct{ Avg float64 }
		if err := json.Unmarshal(m[key], &v); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		return v.Avg
	}
	agg := stats(filepath.Join(out, "profile_export_genai_perf.json"))
	n1, n2 := stats(filepath.Join(dir, "in", "n1", "profile_export_genai_perf.json")), stats(filepath.Join(dir, "in", "n2", "profile_export_genai_perf.json"))
	for _, key := range []string{"request_throughput", "output_token_throughput"} {
		if got, want := avg(agg, key), avg(n1, key)+avg(n2, key); got != want {
			t.Errorf("%s %v, want the runs' sum %v", key, got, want)
		}
	}
	if avg(agg, "request_count") != 24 {
		t.Errorf("request_count %v, want 24", avg(agg, "request_count"))
	}
	rep := runCLI(t, dir, "report", filepath.Join(out, "profile_export.json"))
	if rep.code != 0 {
		t.Fatalf("report of the merged export: exit %d\n%s", rep.code, rep.stderr)
	}
	union := stats(filepath.Join(out, "llmbench-report", "profile_export_genai_perf.json"))
	for _, key := range []string{"time_to_first_token", "inter_token_latency", "request_latency"} {
		if string(agg[key]) != string(union[key]) {
			t.Errorf("%s: %s, want the merged requests' %s", key, agg[key], union[key])
		}
	}
	var cfg struct {
		Subcommand string
		Process    struct {
			InputPath string `json:"input_path"`
		}
		Endpoint json.RawMessage
	}
	var first struct{ Endpoint json.RawMessage }
	json.Unmarshal(n1["input_config"], &first)
	if err := json.Unmarshal(agg["input_config"], &cfg); err != nil || cfg.Subcommand != "process" || cfg.Process.InputPath != "in" || string(cfg.Endpoint) != string(first.Endpoint) {
		t.Errorf("input_config: subcommand %q, process.input_path %q, endpoint %s (first run's %s): %v", cfg.Subcommand, cfg.Process.InputPath, cfg.Endpoint, first.Endpoint, err)
	}
}
