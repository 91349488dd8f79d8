package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/llmbench/llmbench/runtime/gpflags"
)

// startDCGMHost is a real DCGM exporter's page for one host with two A100s
// drawing exactly watts[0] and watts[1]: each energy counter (mJ) rises
// at its GPU's rate from when the exporter started, so any window's
// energy is known by calculation.
func startDCGMHost(t *testing.T, watts ...float64) *httptest.Server {
	t.Helper()
	start := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		elapsed := float64(time.Since(start).Nanoseconds())
		var power, energy strings.Builder
		for i, p := range watts {
			labels := fmt.Sprintf(`gpu="%d",UUID="GPU-a100-%d",device="nvidia%d",modelName="NVIDIA A100-SXM4-80GB",Hostname="gpu-node"`, i, i, i)
			fmt.Fprintf(&power, "DCGM_FI_DEV_POWER_USAGE{%s} %g\n", labels, p)
			fmt.Fprintf(&energy, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{%s} %.0f\n", labels, 4e9+p*elapsed/1e6) // W × ns / 1e6 = mJ
		}
		fmt.Fprintf(w, "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n%s# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n%s", &power, &energy)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A standalone `llmbench sim` whose /metrics is found at the endpoint is
// never merged with a real exporter given by --server-metrics-url: its
// made-up H100 was added to two real A100s (energy per token 1.296 J
// instead of 0.811 in the audit). The reductions use the two A100s only:
// 250 + 310 W, so energy per token is 560 W × the window ÷ the output
// tokens, by hand; the simulator is named in a warning and marked in the
// sources, as simulated and left out.
func TestSimulatedNeverMergedWithRealGPUs(t *testing.T) {
	dcgm := startDCGMHost(t, 250, 310)
	simURL := startSimCommand(t, "--ttft", "20ms", "--itl", "4ms")
	simSource := strings.TrimSuffix(strings.TrimPrefix(simURL, "http://"), "/v1")
	dir, file := writeScenario(t, fmt.Sprintf(`
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = %q, model = "llmbench-sim", api = "chat", stream = True),
        dataset = synthetic(input_tokens = fixed(32), output_tokens = fixed(40)), traffic = concurrency(4), requests = 60)
`, simURL))
	r := runCLI(t, dir, "run", file, "--no-plots", "--server-metrics-url", dcgm.URL+"/metrics")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	block, osl := telemetryPoint(t, filepath.Join(dir, "out"))
	window := block["window_ns"].([]any)
	seconds := (window[1].(float64) - window[0].(float64)) / 1e9
	want := 560 * seconds / osl
	jpt := num(t, block, "energy_per_token_j", "value")
	t.Logf("energy per token %.5f J against 560 W × %.4f s / %.0f tokens = %.5f J", jpt, seconds, osl, want)
	if math.Abs(jpt-want) > 0.01*want {
		t.Errorf("energy per token %.5f J, want 560 W × %.4f s / %.0f tokens = %.5f J (1%%)", jpt, seconds, osl, want)
	}
	if p := num(t, block, "power_w", "avg"); p != 560 {
		t.Errorf("total power %v W, want 250 + 310", p)
	}
	gpus := block["gpus"].([]any)
	if len(gpus) != 2 {
		t.Errorf("GPUs %v, want the two A100s", gpus)
	}
	for _, g := range gpus {
		if g := g.(map[string]any); g["model"] != "NVIDIA A100-SXM4-80GB" || g["simulated"] != false {
			t.Errorf("GPU %v", g)
		}
	}
	if block["simulated"] != false || len(block["server"].(map[string]any)["engines"].([]any)) != 0 {
		t.Errorf("simulated %v, server %v: the simulator's figures are not the run's", block["simulated"], block["server"])
	}
	marked := false
	for _, s := range block["sources"].([]any) {
		s := s.(map[string]any)
		sim := s["url"] == simSource
		marked = marked || sim
		if s["simulated"] != sim || s["left_out"] != sim {
			t.Errorf("source %v (the simulator is %s)", s, simSource)
		}
	}
	if !marked {
		t.Errorf("the simulator %s is not among the sources %v", simSource, block["sources"])
	}
	warning := "warning: " + simSource + " serves llmbench's simulated metrics (llmbench_simulated 1): left out of every figure"
	if !strings.Contains(r.stdout, warning) || !strings.Contains(r.stdout, "GPU: 2 (") || strings.Contains(r.stdout, "H100") {
		t.Errorf("console (want %q):\n%s", warning, r.stdout)
	}
}

// The simulator's made-up GPU and server say "simulated" in every
// artifact: the console, summary.json, GenAI-Perf's JSON and CSV,
// report.html and telemetry.parquet.
func TestSimulatedLabelledInEveryArtifact(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = sim(ttft = "20ms", itl = "4ms"),
        dataset = synthetic(input_tokens = fixed(32), output_tokens = fixed(40)), traffic = concurrency(4), requests = 40)
`)
	r := runCLI(t, dir, "run", file, "--no-plots")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"GPU (simulated): 1 (gpu0 (simulated) NVIDIA H100 80GB HBM3)", "Server (vllm, simulated): ",
		"Server latency (simulated): "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("console lacks %q:\n%s", want, r.stdout)
		}
	}
	out, point := filepath.Join(dir, "out"), filepath.Join(dir, "out", "e", "concurrency4")
	block, _ := telemetryPoint(t, out)
	gpu := block["gpus"].([]any)[0].(map[string]any)
	server := block["server"].(map[string]any)
	src := block["sources"].([]any)[0].(map[string]any)
	if block["simulated"] != true || gpu["simulated"] != true || gpu["key"] != "gpu0 (simulated)" || server["simulated"] != true ||
		src["simulated"] != true || src["left_out"] != false {
		t.Errorf("summary.json: simulated %v, GPU %v, server simulated %v, source %v", block["simulated"], gpu, server["simulated"], src)
	}
	var gp struct {
		TelemetryStats map[string]map[string]any `json:"telemetry_stats"`
		Llmbench       struct {
			Telemetry struct {
				Simulated bool `json:"simulated"`
			} `json:"telemetry"`
		} `json:"llmbench"`
	}
	b, err := os.ReadFile(filepath.Join(point, "profile_export_genai_perf.json"))
	if err != nil || json.Unmarshal(b, &gp) != nil {
		t.Fatalf("profile_export_genai_perf.json: %v", err)
	}
	if _, ok := gp.TelemetryStats["gpu_power_usage"]["gpu0 (simulated)"]; !ok || !gp.Llmbench.Telemetry.Simulated {
		t.Errorf("GenAI-Perf JSON: gpu_power_usage %v, llmbench.telemetry.simulated %v", gp.TelemetryStats["gpu_power_usage"], gp.Llmbench.Telemetry.Simulated)
	}
	if rows := readCSVRows(t, filepath.Join(point, "profile_export_genai_perf.csv")); !hasRow(rows, "GPU Power Usage (W)", "gpu0 (simulated)") {
		t.Errorf("GenAI-Perf CSV has no GPU row keyed gpu0 (simulated): %v", rows)
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil || !strings.Contains(string(html), "1 × NVIDIA H100 80GB HBM3 (simulated)") || !strings.Contains(string(html), "vllm (simulated)") {
		t.Errorf("report.html does not say simulated (%v)", err)
	}
	type row struct {
		Source    string `parquet:"source"`
		Metric    string `parquet:"metric"`
		Simulated bool   `parquet:"simulated"`
	}
	rows, err := parquet.ReadFile[row](filepath.Join(point, "telemetry.parquet"))
	if err != nil || len(rows) == 0 {
		t.Fatalf("telemetry.parquet: %d rows, %v", len(rows), err)
	}
	for _, r := range rows {
		if !r.Simulated {
			t.Fatalf("telemetry.parquet row %+v not flagged simulated", r)
		}
	}
}

// profile against a standalone simulator, with no DCGM exporter at
// GenAI-Perf's default URL, never says "no GPU telemetry" and then
// prints a GPU: the warning is about the URL, and the GPU it finds at the
// endpoint is said to be simulated.
func TestProfileWarnsOfTheURLNotOfNoGPU(t *testing.T) {
	t.Parallel()
	if resp, err := http.Get(gpflags.GenAIPerfMetricsURL); err == nil {
		resp.Body.Close()
		t.Skipf("%s answers on this machine: the test needs it absent", gpflags.GenAIPerfMetricsURL)
	}
	simURL := startSimCommand(t, "--ttft", "5ms", "--itl", "1ms")
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "llmbench-sim", "-u", strings.TrimSuffix(simURL, "/v1"), "--streaming",
		"--concurrency", "2", "--request-count", "10", "--output-tokens-mean", "8")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr+r.stdout, "no GPU telemetry") || !strings.Contains(r.stdout, "GPU (simulated): 1 (") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}

func readCSVRows(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func hasRow(rows [][]string, cells ...string) bool {
	for _, r := range rows {
		if len(r) >= len(cells) && strings.Join(r[:len(cells)], "\x00") == strings.Join(cells, "\x00") {
			return true
		}
	}
	return false
}

// A shard scrapes the whole server's GPUs but sends only its share of the
// point's tokens: its console and summary.json give the GPUs' energy and
// power, and no energy per token or cost per token (they would be twice
// the point's here); the merge of the shards has them.
func TestShardHasNoPerTokenFigures(t *testing.T) {
	t.Parallel()
	dcgm := startDCGMHost(t, 250, 310)
	simURL := startSimCommand(t, "--ttft", "5ms", "--itl", "2ms")
	dir, file := writeScenario(t, fmt.Sprintf(`
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = %q, model = "llmbench-sim", api = "chat", stream = True),
        dataset = synthetic(input_tokens = fixed(32), output_tokens = fixed(20)), traffic = concurrency(4), requests = 40,
        telemetry = [%q], cost_per_hour = 4)
`, simURL, dcgm.URL+"/metrics"))
	start := fmt.Sprint(time.Now().Add(time.Second).Unix() + 1)
	r := runCLI(t, dir, "run", file, "--shard", "1/2", "--start-at", start, "--no-plots")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	why := "shard 1 of 2 sent only its share of the point's tokens while every shard loads the same GPUs; llmbench merge gives the point's"
	if !strings.Contains(r.stdout, "J/token unknown: "+why) || strings.Contains(r.stdout, "per million output tokens") {
		t.Errorf("console:\n%s", r.stdout)
	}
	block, _ := telemetryPoint(t, filepath.Join(dir, "out"))
	for _, k := range []string{"energy_per_token_j", "tokens_per_joule", "cost_per_million_tokens"} {
		if v := block[k].(map[string]any); v["value"] != nil || v["why"] != why {
			t.Errorf("%s: %v", k, v)
		}
	}
	if p := num(t, block, "power_w", "avg"); p != 560 {
		t.Errorf("total power %v W, want 250 + 310", p)
	}
}
