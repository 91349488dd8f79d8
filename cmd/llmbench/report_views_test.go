package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// `llmbench report --view vllm` prints a profile's point as `vllm bench
// serve` prints its results: vLLM's labels, its counts, and the TTFT and
// E2EL GenAI-Perf's export holds (the same definitions, in ms).
func TestReportViewVLLM(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "org/m", "-u", "sim://?itl=1ms&ttft=2ms&error_rate_500=0.1", "--max-error-rate", "100%",
		"--streaming", "--concurrency", "4", "--request-count", "40",
		"--output-tokens-mean", "8", "--synthetic-input-tokens-mean", "20")
	if r.code != 0 {
		t.Fatalf("profile: exit %d\n%s", r.code, r.stderr)
	}
	point := filepath.Join(dir, "artifacts", "org_m-openai-chat-concurrency4")
	gp := genaiPerfJSON(t, point)
	r = runCLI(t, dir, "report", "--view", "vllm", point)
	if r.code != 0 {
		t.Fatalf("report --view vllm: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := r.stdout
	for _, label := range []string{"============ Serving Benchmark Result ============",
		"-----Time per Output Token (excl. 1st token)------", "Mean ITL (ms):", "P99 E2EL (ms):",
		"Peak output token throughput (tok/s):"} {
		if !strings.Contains(out, label) {
			t.Errorf("no %q in the vllm view:\n%s", label, out)
		}
	}
	if strings.Contains(out, "NVIDIA GenAI-Perf") {
		t.Errorf("the vllm view printed GenAI-Perf's table too:\n%s", out)
	}
	ok, failed := vllmValue(t, out, "Successful requests:"), vllmValue(t, out, "Failed requests:")
	if ok+failed != 40 || ok != gp["request_count"]["avg"].(float64) {
		t.Errorf("successful %v + failed %v, want 40 with %v successful", ok, failed, gp["request_count"]["avg"])
	}
	if got := vllmValue(t, out, "Maximum request concurrency:"); got != 4 {
		t.Errorf("maximum request concurrency = %v, want 4", got)
	}
	if got, want := vllmValue(t, out, "Total generated tokens:"), 8*ok; got != want {
		t.Errorf("total generated tokens = %v, want %v (8 per completed request)", got, want)
	}
	for _, c := range []struct{ label, metric string }{
		{"Mean TTFT (ms):", "time_to_first_token"}, {"Mean E2EL (ms):", "request_latency"},
	} {
		want, _ := strconv.ParseFloat(strconv.FormatFloat(gp[c.metric]["avg"].(float64), 'f', 2, 64), 64)
		if got := vllmValue(t, out, c.label); got != want {
			t.Errorf("%s %v, want GenAI-Perf's %s avg %v", c.label, got, c.metric, want)
		}
	}
	// 7 decode steps of about 1 ms each: TPOT is ms, not µs or s.
	if tpot := vllmValue(t, out, "Mean TPOT (ms):"); tpot < 0.5 || tpot > 100 {
		t.Errorf("mean TPOT = %v ms, want about 1", tpot)
	}
	if peak := vllmValue(t, out, "Peak concurrent requests:"); peak < 1 || peak > 4 {
		t.Errorf("peak concurrent requests = %v, want 1 to 4", peak)
	}
}

// vllmValue reads the number after a label of vLLM's "{:<40} {:<10}" lines.
func vllmValue(t *testing.T, out, label string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(label) + ` +(\S+) *$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q line in:\n%s", label, out)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatalf("%s %q: %v", label, m[1], err)
	}
	return v
}

// One run's records give every view in summary.json, and `report --view`
// prints each in its tool's layout; an unknown view is exit 2 naming them.
func TestReportViewsSummaryJSON(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, `
target = endpoint(url = "sim://?itl=1ms&ttft=2ms", model = "m")

def main(ctx):
    return experiment(name = "e", endpoint = target,
                      dataset = synthetic(input_tokens = fixed(10), output_tokens = fixed(5)),
                      traffic = concurrency(2), requests = 12)
`)
	if r := runCLI(t, dir, "run", file); r.code != 0 {
		t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(dir, "out")
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var summary struct {
		Experiments []struct {
			Points []struct {
				Requests struct{ Completed, Failed int }
				Metrics  struct {
					TTFT struct{ Avg float64 } `json:"ttft"`
				}
				Views map[string]map[string]any
			}
		}
	}
	if err := json.Unmarshal(b, &summary); err != nil {
		t.Fatal(err)
	}
	p := summary.Experiments[0].Points[0]
	for _, name := range []string{"genai-perf", "vllm", "guidellm", "llmperf", "aiperf"} {
		if p.Views[name] == nil {
			t.Errorf("summary.json has no %s view", name)
		}
	}
	if p.Views["vllm"]["completed"] != 12.0 || p.Views["llmperf"]["num_requests_started"] != 12.0 {
		t.Errorf("vllm completed %v, llmperf started %v; want 12", p.Views["vllm"]["completed"], p.Views["llmperf"]["num_requests_started"])
	}
	if tot := p.Views["guidellm"]["request_totals"].(map[string]any)["total"]; tot != 12.0 {
		t.Errorf("guidellm total requests = %v, want 12", tot)
	}
	for _, v := range []string{"genai-perf", "aiperf"} {
		if ttft := p.Views[v]["time_to_first_token"].(map[string]any)["avg"]; ttft != p.Metrics.TTFT.Avg {
			t.Errorf("%s TTFT avg %v, want the point's %v", v, ttft, p.Metrics.TTFT.Avg)
		}
	}
	// vLLM's TPOT: 4 decode steps of about 1 ms each.
	if tpot := p.Views["vllm"]["mean_tpot_ms"].(float64); tpot < 0.5 || tpot > 100 {
		t.Errorf("vllm mean_tpot_ms = %v, want about 1", tpot)
	}

	for view, label := range map[string]string{
		"genai-perf": "NVIDIA GenAI-Perf | LLM Metrics", "vllm": "Serving Benchmark Result",
		"guidellm": "Request Latency Statistics (Completed Requests)", "llmperf": "inter_token_latency_s",
		"aiperf": "NVIDIA AIPerf | LLM Metrics",
	} {
		r := runCLI(t, dir, "report", "--view", view, out)
		if r.code != 0 || !strings.Contains(r.stdout, label) {
			t.Errorf("report --view %s: exit %d, %q missing\n%s%s", view, r.code, label, r.stdout, r.stderr)
		}
	}
	if got, err := os.ReadFile(filepath.Join(out, "summary.json")); err != nil || string(got) != string(b) {
		t.Errorf("report --view changed summary.json (err %v)", err)
	}
	r := runCLI(t, dir, "report", "--view", "vllm-bench", out)
	if r.code != 2 || !strings.Contains(r.stderr, "--view") || !strings.Contains(r.stderr, "genai-perf, vllm, guidellm, llmperf, aiperf") {
		t.Errorf("report --view vllm-bench: exit %d, stderr %q; want 2 naming the views", r.code, r.stderr)
	}
}
