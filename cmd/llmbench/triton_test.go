package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// profile --service-kind triton against the simulator's gRPC API, both
// backends: GenAI-Perf's folder (<model>-triton-<backend>-concurrency2),
// inputs.json records without the payload wrapper holding the backend's
// tensors, a raw export naming tensors and text_output pieces, and the
// metrics — every request complete, OSL 20 by chunks (Triton reports no
// usage), TTFT at least the sim's 20 ms.
func TestProfileTriton(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ backend, input string }{
		{"tensorrtllm", `"max_tokens": [` + "\n" + `        20`},
		{"vllm", `"sampling_parameters": [` + "\n" + `        "{\"max_tokens\":\"20\"}"`},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			dir := t.TempDir()
			r := runCLI(t, dir, "profile", "-m", "org/model", "--service-kind", "triton", "--backend", tc.backend,
				"-u", "sim://?itl=1ms&ttft=20ms", "--streaming", "--concurrency", "2", "--request-count", "10",
				"--synthetic-input-tokens-mean", "50", "--output-tokens-mean", "20")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			run := filepath.Join(dir, "artifacts", "org_model-triton-"+tc.backend+"-concurrency2")
			m := genaiPerfJSON(t, run)
			if got := m["request_count"]["avg"]; got != 10.0 {
				t.Errorf("request_count = %v, want 10", got)
			}
			if got := m["output_sequence_length"]["avg"]; got != 20.0 {
				t.Errorf("OSL avg = %v, want 20", got)
			}
			if got, _ := m["time_to_first_token"]["min"].(float64); got < 20 {
				t.Errorf("TTFT min = %v ms, want >= 20 (the sim's ttft)", got)
			}
			if own := m["llmbench"]; own["token_counting"] != "chunks" {
				t.Errorf("token_counting %v, want chunks", own["token_counting"])
			}
			ep := m["input_config"]["endpoint"].(map[string]any)
			if ep["service_kind"] != "triton" || ep["backend"] != tc.backend || ep["type"] != "kserve" {
				t.Errorf("input_config.endpoint: service_kind %v, backend %v, type %v", ep["service_kind"], ep["backend"], ep["type"])
			}
			inputs := readFile(t, filepath.Join(run, "inputs.json"))
			if strings.Contains(inputs, `"payload"`) || !strings.Contains(inputs, `"model": "org/model"`) ||
				!strings.Contains(inputs, `"text_input": [`) || !strings.Contains(inputs, tc.input) {
				t.Errorf("inputs.json is not GenAI-Perf's %s records:\n%.700s", tc.backend, inputs)
			}
			checkTritonExport(t, filepath.Join(run, "profile_export.json"), 10, 20)
		})
	}
}

// checkTritonExport reads perf_analyzer's raw export of a Triton run: the
// requests name their tensors and answer in text_output pieces.
func checkTritonExport(t *testing.T, path string, requests, pieces int) {
	t.Helper()
	var export struct {
		Experiments []struct {
			Requests []struct {
				Inputs  map[string]any      `json:"request_inputs"`
				Stamps  []int64             `json:"response_timestamps"`
				Outputs []map[string]string `json:"response_outputs"`
			} `json:"requests"`
		} `json:"experiments"`
		ServiceKind string `json:"service_kind"`
		Endpoint    string `json:"endpoint"`
	}
	if err := json.Unmarshal([]byte(readFile(t, path)), &export); err != nil {
		t.Fatal(err)
	}
	if export.ServiceKind != "triton" || export.Endpoint != "" || len(export.Experiments) != 1 {
		t.Fatalf("service_kind %q, endpoint %q, %d experiments", export.ServiceKind, export.Endpoint, len(export.Experiments))
	}
	reqs := export.Experiments[0].Requests
	if len(reqs) != requests {
		t.Fatalf("%d requests in the export, want %d", len(reqs), requests)
	}
	for i, r := range reqs {
		if _, ok := r.Inputs["text_input"].(string); !ok || r.Inputs["model"] != nil || r.Inputs["stream"] != true {
			t.Errorf("request %d inputs %v: want text_input as a string, stream true, no model", i, r.Inputs)
		}
		if len(r.Outputs) != pieces || len(r.Stamps) != pieces {
			t.Errorf("request %d: %d outputs at %d stamps, want %d", i, len(r.Outputs), len(r.Stamps), pieces)
		}
		for _, o := range r.Outputs {
			if _, ok := o["text_output"]; !ok || len(o) != 1 {
				t.Errorf("request %d output %v, want {text_output}", i, o)
			}
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// GenAI-Perf's --endpoint-type kserve alone names the same API; without
// --streaming every answer is one ModelInfer response, one chunk.
func TestProfileKServeEndpointTypeIsTriton(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "ensemble", "--endpoint-type", "kserve", "-u", "sim://?itl=1ms&ttft=2ms",
		"--request-count", "4", "--synthetic-input-tokens-mean", "10", "--output-tokens-mean", "6")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	m := genaiPerfJSON(t, filepath.Join(dir, "artifacts", "ensemble-triton-tensorrtllm-concurrency1"))
	if m["request_count"]["avg"] != 4.0 || m["output_sequence_length"]["avg"] != 1.0 {
		t.Errorf("request_count %v, OSL %v; want 4 requests of one chunk each", m["request_count"]["avg"], m["output_sequence_length"]["avg"])
	}
}

// `llmbench sim --grpc-addr` serves the gRPC API standalone, and profile
// reaches it as GenAI-Perf users write it (-u host:port); the readiness
// check refuses a model the server does not have, and a server that is
// not there, before any load (exit 3).
func TestProfileTritonAgainstSimCommand(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binary, "sim", "--addr", "127.0.0.1:0", "--grpc-addr", "127.0.0.1:0", "--model", "ensemble", "--strict-model")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); err != nil {
			t.Errorf("sim did not stop cleanly on SIGINT: %v", err)
		}
	}()
	out := bufio.NewReader(stdout)
	var addr string
	for addr == "" {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("sim said no gRPC address: %v", err)
		}
		for _, f := range strings.Fields(line) {
			if a, ok := strings.CutPrefix(f, "grpc://"); ok {
				addr = a
			}
		}
	}
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "ensemble", "--service-kind", "triton", "-u", addr, "--streaming",
		"--request-count", "3", "--output-tokens-mean", "3", "--synthetic-input-tokens-mean", "5")
	if r.code != 0 {
		t.Fatalf("profile against `llmbench sim --grpc-addr` (%s): exit %d\n%s", addr, r.code, r.stderr)
	}
	checkTritonExport(t, filepath.Join(dir, "artifacts", "ensemble-triton-tensorrtllm-concurrency1", "profile_export.json"), 3, 3)
	r = runCLI(t, dir, "profile", "-m", "llama", "--service-kind", "triton", "-u", "grpc://"+addr, "--request-count", "1")
	if r.code != 3 || !strings.Contains(r.stderr, `model "llama" is not ready`) {
		t.Errorf("unknown model: exit %d, %q; want 3 naming the model", r.code, r.stderr)
	}
	r = runCLI(t, dir, "profile", "-m", "ensemble", "--service-kind", "triton", "-u", "127.0.0.1:1", "--request-count", "1")
	if r.code != 3 || !strings.Contains(r.stderr, "unreachable") {
		t.Errorf("no server: exit %d, %q; want 3 and 'unreachable'", r.code, r.stderr)
	}
}

// Scenarios with api="triton", both backends, streamed and whole, run
// against the simulator: OSL 12 by chunks when streamed (one token a
// response), 1 when whole; the point's inputs.json holds bare records.
func TestRunTritonScenarios(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"tensorrtllm", "vllm"} {
		for _, stream := range []string{"True", "False"} {
			t.Run(backend+"-stream="+stream, func(t *testing.T) {
				dir := t.TempDir()
				osl := "12"
				if stream == "False" {
					osl = "1"
				}
				scenario := `
target = endpoint(url = "sim://?ttft=5ms&itl=1ms", model = "m", api = "triton", backend = "` + backend + `", stream = ` + stream + `)
def main(ctx):
    return experiment(name = "trt", endpoint = target,
        dataset = synthetic(input_tokens = fixed(30), output_tokens = fixed(12)),
        traffic = concurrency(2), requests = 8, gates = ["error_rate < 1%", "osl.avg == ` + osl + `"])
`
				if err := os.WriteFile(filepath.Join(dir, "s.star"), []byte(scenario), 0o644); err != nil {
					t.Fatal(err)
				}
				r := runCLI(t, dir, "run", "s.star", "--out", "out")
				if r.code != 0 {
					t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
				}
				inputs, _ := filepath.Glob(filepath.Join(dir, "out", "trt", "*", "inputs.json"))
				if len(inputs) != 1 {
					t.Fatalf("inputs.json files %v, want one", inputs)
				}
				if body := readFile(t, inputs[0]); strings.Contains(body, `"payload"`) || !strings.Contains(body, `"text_input"`) {
					t.Errorf("inputs.json:\n%.400s", body)
				}
			})
		}
	}
}

// A Triton run's raw export, imported by `llmbench report`, recomputes
// the run's own figures (chunks counted as the run counted them).
func TestReportImportsTritonExport(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "ensemble", "--service-kind", "triton", "-u", "sim://?itl=1ms&ttft=5ms", "--streaming",
		"--request-count", "6", "--output-tokens-mean", "5", "--synthetic-input-tokens-mean", "10")
	if r.code != 0 {
		t.Fatalf("profile: exit %d\n%s", r.code, r.stderr)
	}
	run := filepath.Join(dir, "artifacts", "ensemble-triton-tensorrtllm-concurrency1")
	imported := filepath.Join(dir, "imported")
	if err := os.MkdirAll(imported, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(imported, "profile_export.json"), []byte(readFile(t, filepath.Join(run, "profile_export.json"))), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, dir, "report", filepath.Join(imported, "profile_export.json"), "--token-count", "chunks")
	if r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	want, got := genaiPerfJSON(t, run), genaiPerfJSON(t, filepath.Join(imported, "llmbench-report"))
	for _, metric := range []string{"request_count", "output_sequence_length", "time_to_first_token", "inter_token_latency", "request_latency"} {
		if want[metric]["avg"] != got[metric]["avg"] {
			t.Errorf("%s avg: imported %v, run %v", metric, got[metric]["avg"], want[metric]["avg"])
		}
	}
}
