package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A `vllm bench serve --save-detailed` result is imported where a
// GenAI-Perf export is: `report --view vllm` recomputes, from its
// per-request values, the numbers vllm bench printed from the same
// requests (its own fields in the file), and `compare` takes it as a
// baseline. Throughput is left out: vllm bench divides by its own
// benchmark duration (from before the first request to after the last
// task ends), llmbench by the first send to the last answer.
func TestVLLMBenchImport(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../runtime/vllmbench/testdata/vllm-bench-serve.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "vllm-bench-serve.json") // report writes beside it
	writeFileIn(t, dir, "vllm-bench-serve.json", string(b))
	var own map[string]any
	if err := json.Unmarshal(b, &own); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "report", src, "--view", "vllm")
	if r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	for _, c := range []struct{ label, field string }{
		{"Successful requests:", "completed"}, {"Total input tokens:", "total_input_tokens"},
		{"Total generated tokens:", "total_output_tokens"},
		{"Mean TTFT (ms):", "mean_ttft_ms"}, {"Median TTFT (ms):", "median_ttft_ms"}, {"P99 TTFT (ms):", "p99_ttft_ms"},
		{"Mean TPOT (ms):", "mean_tpot_ms"}, {"Median TPOT (ms):", "median_tpot_ms"}, {"P99 TPOT (ms):", "p99_tpot_ms"},
		{"Mean ITL (ms):", "mean_itl_ms"}, {"Median ITL (ms):", "median_itl_ms"}, {"P99 ITL (ms):", "p99_itl_ms"},
	} {
		v := own[c.field].(float64)
		want := fmt.Sprintf("%-40s %-10.2f", c.label, v)
		if v == float64(int64(v)) && !strings.Contains(c.field, "_ms") {
			want = fmt.Sprintf("%-40s %-10d", c.label, int64(v))
		}
		if !strings.Contains(r.stdout, strings.TrimSpace(want)) {
			t.Errorf("report lacks %q (vllm bench's %s)\n%s", want, c.field, r.stdout)
		}
	}
	cmp := runCLI(t, dir, "compare", src, src, "--metrics", "ttft.p50,itl.p50")
	if cmp.code != 0 || !strings.Contains(cmp.stdout, "no significant change") {
		t.Errorf("compare of the result with itself: exit %d\n%s%s", cmp.code, cmp.stdout, cmp.stderr)
	}
}

// copyFixture copies the files of a reader's testdata into a temporary
// folder (report writes beside what it imports) and returns the folder.
func copyFixture(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeFileIn(t, dir, filepath.Base(f), string(b))
	}
	return dir
}

// AIPerf's folder (profile_export.jsonl and its summary) is imported:
// `report --view aiperf` prints, from the per-request records, every
// per-request statistic AIPerf's own summary holds for the same requests
// (avg, min, max, p99, p90, p50, std at AIPerf's two decimals). Its
// throughputs are left out: AIPerf 0.13 divides by its profiling phase's
// window, which begins before the first send (docs/metrics.md).
func TestAIPerfImport(t *testing.T) {
	t.Parallel()
	dir := copyFixture(t, "../../runtime/aiperf/testdata/aiperf/profile_export.jsonl", "../../runtime/aiperf/testdata/aiperf/profile_export_aiperf.json")
	var own map[string]json.RawMessage
	b, _ := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	if err := json.Unmarshal(b, &own); err != nil {
		t.Fatal(err)
	}
	stats := func(field string) (m map[string]any) {
		if err := json.Unmarshal(own[field], &m); err != nil {
			t.Fatalf("%s: %v", field, err)
		}
		return m
	}
	r := runCLI(t, dir, "report", dir, "--view", "aiperf")
	if r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	for _, c := range []struct{ label, field string }{
		{"Time to First Token (ms)", "time_to_first_token"}, {"Time to Second Token (ms)", "time_to_second_token"},
		{"Request Latency (ms)", "request_latency"}, {"Inter Token Latency (ms)", "inter_token_latency"},
		{"Output Sequence Length (tokens)", "output_sequence_length"}, {"Input Sequence Length (tokens)", "input_sequence_length"},
	} {
		cells := []string{c.label}
		for _, stat := range []string{"avg", "min", "max", "p99", "p90", "p50", "std"} {
			cells = append(cells, fmt.Sprintf("%.2f", stats(c.field)[stat].(float64)))
		}
		if !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(r.stdout, "│", " ")), " "), strings.Join(cells, " ")) {
			t.Errorf("report lacks the row %q (AIPerf's %s)\n%s", cells, c.field, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "Request Count (requests) │  15.00") {
		t.Errorf("report's request count is not AIPerf's 15\n%s", r.stdout)
	}
	// Its summary, named, is read through the records beside it; alone,
	// it is refused saying what to import.
	summary := filepath.Join(dir, "profile_export_aiperf.json")
	table := func(out string) string { return strings.Split(out, "Recomputed from")[0] }
	if again := runCLI(t, dir, "report", summary, "--view", "aiperf"); again.code != 0 || table(again.stdout) != table(r.stdout) {
		t.Errorf("report of the summary: exit %d\n%s%s", again.code, again.stdout, again.stderr)
	}
	os.Remove(filepath.Join(dir, "profile_export.jsonl"))
	if alone := runCLI(t, dir, "report", summary); alone.code != 2 || !strings.Contains(alone.stderr, "import the profile_export.jsonl") {
		t.Errorf("report of a summary alone: exit %d\n%s", alone.code, alone.stderr)
	}
}

// GuideLLM's benchmarks.json of two benchmarks is imported as two points:
// `report --view guidellm` prints, for each, the medians and p95s of its
// latency table and the means of its throughput table exactly as GuideLLM
// computed them from the same requests (its metrics block, at its one
// decimal), and `compare` matches the points by load.
func TestGuideLLMImport(t *testing.T) {
	t.Parallel()
	dir := copyFixture(t, "../../runtime/guidellm/testdata/benchmarks.json")
	var own struct {
		Benchmarks []struct {
			Metrics map[string]json.RawMessage `json:"metrics"`
		} `json:"benchmarks"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "benchmarks.json"))
	if err := json.Unmarshal(b, &own); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "report", dir, "--view", "guidellm")
	if r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	flat := strings.Join(strings.Fields(r.stdout), " ")
	one := func(v float64) string { return fmt.Sprintf("%.1f", v) }
	type dist struct {
		Mean        float64            `json:"mean"`
		Median      float64            `json:"median"`
		Percentiles map[string]float64 `json:"percentiles"`
	}
	for i, bm := range own.Benchmarks {
		m := map[string]map[string]dist{}
		for k, raw := range bm.Metrics {
			var d map[string]dist
			if json.Unmarshal(raw, &d) == nil {
				m[k] = d
			}
		}
		var latency []string
		for _, k := range []string{"request_latency", "time_to_first_token_ms", "time_to_first_output_token_ms", "inter_token_latency_ms", "time_per_output_token_ms"} {
			latency = append(latency, one(m[k]["successful"].Median), one(m[k]["successful"].Percentiles["p95"]))
		}
		throughput := []string{one(m["request_concurrency"]["total"].Median), one(m["request_concurrency"]["total"].Mean),
			one(m["requests_per_second"]["total"].Mean), one(m["prompt_tokens_per_second"]["total"].Mean),
			one(m["output_tokens_per_second"]["total"].Mean), one(m["tokens_per_second"]["total"].Mean)}
		for _, row := range [][]string{latency, throughput} {
			if want := "| concurrent | " + strings.Join(row, " | ") + " |"; !strings.Contains(flat, want) {
				t.Errorf("benchmark %d: report lacks %q\n%s", i+1, want, r.stdout)
			}
		}
	}
	for _, sub := range []string{"concurrency1", "concurrency4"} {
		if _, err := os.Stat(filepath.Join(dir, "llmbench-report", sub, "profile_export_genai_perf.json")); err != nil {
			t.Errorf("report wrote no GenAI-Perf files for %s: %v", sub, err)
		}
	}
	cmp := runCLI(t, dir, "compare", dir, dir, "--metrics", "ttft.p50")
	if cmp.code != 0 || !strings.Contains(cmp.stdout, "== concurrency1 ==") || !strings.Contains(cmp.stdout, "== concurrency4 ==") {
		t.Errorf("compare of the report with itself: exit %d\n%s%s", cmp.code, cmp.stdout, cmp.stderr)
	}
}
