package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The real-vLLM suite (issue 28 item 7) runs llmbench, built as a user
// builds it, against vLLM 0.32.0's own OpenAI server (`vllm serve`, CPU,
// a tiny random-weight Llama model with the real Llama 3 tokenizer)
// started by ../shared/vllmcpu/start.sh, and checks what a user of vLLM
// relies on: streamed chat and completions at concurrency 1 and 4 with
// exact usage counts, the server window's counts, client against server
// ITL, the prefix-cache hit share from the server's counters, an open
// loop across uvicorn's idle keep-alive close, a scenario with gates and
// a baseline, the Responses and Messages APIs, and the import of a
// result file `vllm bench serve` made in the same suite. It needs the
// 6.5 GB environment start.sh builds, so it runs only under
// LLMBENCH_E2E_VLLM=1 (`task e2e-vllm`), never in .ci/run; every number
// docs/validation.md quotes is logged with the prefix VALIDATION.

const (
	e2eVLLMEnv     = "LLMBENCH_E2E_VLLM" // "1" runs the suite
	vllmcpuEnv     = "LLMBENCH_VLLMCPU"  // folder holding start.sh and stop.sh
	vllmModel      = "tiny"              // start.sh's default MODEL_NAME
	vllmStartLimit = 20 * time.Minute    // a first install (6.5 GB) on two busy cores
)

// vllmServer is the running vLLM the suite talks to.
type vllmServer struct {
	base      string // "http://127.0.0.1:8000"
	root      string // start.sh's cache: venv/, model/
	tokenizer string // root/model/tokenizer.json
}

// startVLLM skips without LLMBENCH_E2E_VLLM=1; otherwise it runs
// start.sh (with VLLM_SERVER_DEV_MODE=1, so /reset_prefix_cache exists)
// and, when no server was serving before, stops it when the test ends.
func startVLLM(t *testing.T) *vllmServer {
	t.Helper()
	if os.Getenv(e2eVLLMEnv) != "1" {
		t.Skipf("the real-vLLM suite runs only with %s=1 (task e2e-vllm): it starts vLLM with start.sh from $%s (default: shared/vllmcpu in a folder above the repo)", e2eVLLMEnv, vllmcpuEnv)
	}
	dir := scriptsDir(t, vllmcpuEnv, filepath.Join("shared", "vllmcpu"))
	wasRunning := realAnswers("http://127.0.0.1:" + realEnvOr("PORT", "8000") + "/v1/models")
	cmd := exec.Command(filepath.Join(dir, "start.sh"))
	cmd.Env = append(os.Environ(), "VLLM_SERVER_DEV_MODE=1")
	// Files, not pipes: the vllm serve start.sh leaves running inherits
	// its stderr (start.sh keeps it as fd 3 for progress lines), and a
	// pipe would not reach EOF until the server stopped, so waiting for
	// start.sh would wait for the server.
	outF, errF := tempFile(t, "start.out"), tempFile(t, "start.err")
	cmd.Stdout, cmd.Stderr = outF, errF
	ctx, cancel := context.WithTimeout(context.Background(), vllmStartLimit)
	defer cancel()
	start := time.Now()
	err := runUntil(ctx, cmd)
	out, errb := readBack(t, outF), readBack(t, errF)
	if err != nil {
		t.Fatalf("%s/start.sh: %v\n%s", dir, err, errb)
	}
	t.Logf("%s vLLM start.sh took %s (already serving: %v)", validationMark, time.Since(start).Round(time.Second), wasRunning)
	if !wasRunning && os.Getenv(keepServerEnv) != "1" {
		t.Cleanup(func() {
			b, err := exec.Command(filepath.Join(dir, "stop.sh")).CombinedOutput()
			t.Logf("stop.sh: %s %v", strings.TrimSpace(string(b)), err)
		})
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	s := &vllmServer{base: lines[len(lines)-1], root: vllmRoot()}
	s.tokenizer = filepath.Join(s.root, "model", "tokenizer.json")
	if !strings.HasPrefix(s.base, "http://") {
		t.Fatalf("start.sh printed %q, want the base URL", out)
	}
	return s
}

// tempFile is a file in the test's temporary folder, closed at its end.
func tempFile(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// readBack is what was written to f.
func readBack(t *testing.T, f *os.File) string {
	t.Helper()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// scriptsDir is $env, or the first sub (shared/vllmcpu) holding start.sh
// in a folder above this one.
func scriptsDir(t *testing.T, env, sub string) string {
	t.Helper()
	if d := os.Getenv(env); d != "" {
		return d
	}
	wd, _ := os.Getwd()
	for d := wd; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, sub, "start.sh")); err == nil {
			return filepath.Join(d, sub)
		}
	}
	t.Fatalf("no %s/start.sh in any folder above %s; set %s", sub, wd, env)
	return ""
}

// vllmRoot is start.sh's cache folder (its VLLMCPU_ROOT).
func vllmRoot() string {
	if r := os.Getenv("VLLMCPU_ROOT"); r != "" {
		return r
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "llmbench-vllmcpu")
}

func TestRealVLLM(t *testing.T) {
	s := startVLLM(t)
	t.Run("streaming chat and completions", s.testStreaming)
	t.Run("prefix cache from the server's counters", s.testPrefixCache)
	t.Run("idle keep-alive close", s.testIdleClose)
	t.Run("scenario with gates and a baseline", s.testGatesBaseline)
	t.Run("responses and messages", s.testAgentAPIs)
	t.Run("vllm bench serve import", s.testVLLMBenchImport)
}

// profile runs `llmbench profile` against vLLM with the model's
// tokenizer, token-exact prompts, ignore_eos and usage counting, and
// returns the result and its one artifact folder.
func (s *vllmServer) profile(t *testing.T, args ...string) (cliResult, string) {
	t.Helper()
	dir := t.TempDir()
	full := append([]string{"profile", "--artifact-dir", filepath.Join(dir, "artifacts"), "-u", s.base, "-m", vllmModel,
		"--tokenizer", s.tokenizer, "--token-count", "usage", "--extra-inputs", "ignore_eos:true"}, args...)
	start := time.Now()
	r := runCLI(t, dir, full...)
	t.Logf("llmbench %s: exit %d in %s", strings.Join(full, " "), r.code, time.Since(start).Round(time.Millisecond))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	return r, realOnlyDir(filepath.Join(dir, "artifacts"))
}

// vllmTelemetry is what the suite reads of a point's telemetry block.
type vllmTelemetry struct {
	Warnings     []string `json:"warnings"`
	ServerWindow *struct {
		ServerCount    float64 `json:"server_count"`
		ClientCount    int     `json:"client_count"`
		ClientInWindow int     `json:"client_in_window"`
	} `json:"server_window"`
	TokenChecks []struct {
		What           string
		Client, Server float64
		Agree          bool
	} `json:"token_checks"`
	Server struct {
		PrefixCacheHitRate struct{ Value *float64 } `json:"prefix_cache_hit_rate"`
		FinishReasons      map[string]float64       `json:"finish_reasons"`
		Latencies          []struct {
			Metric string   `json:"metric"`
			Count  float64  `json:"count"`
			MeanMS *float64 `json:"mean_ms"`
		} `json:"latencies"`
	} `json:"server"`
}

func readVLLMTelemetry(t *testing.T, run string) vllmTelemetry {
	t.Helper()
	var doc struct {
		LLMBench struct{ Telemetry vllmTelemetry } `json:"llmbench"`
	}
	readJSONFile(t, filepath.Join(run, "profile_export_genai_perf.json"), &doc)
	return doc.LLMBench.Telemetry
}

// serverMean is the server's mean of a latency metric in ms, NaN without.
func (v vllmTelemetry) serverMean(metric string) float64 {
	for _, l := range v.Server.Latencies {
		if l.Metric == metric && l.MeanMS != nil {
			return *l.MeanMS
		}
	}
	return math.NaN()
}

// Streamed chat and completions at concurrency 1 and 4: every request
// completes with exactly its 32 tokens (usage, ignore_eos), the client's
// token sums equal the server's counters, the server window counts the
// measured requests and not the 2 warm-up ones, vLLM says every request
// stopped at its length, and the client's ITL (per request, (last −
// first chunk) / (OSL − 1)) is the server's per-request time per output
// token within 1 ms on the mean. The pooled gaps between content chunks
// are logged beside the server's per-token ITL, not compared: when
// vLLM's API server falls behind its engine it sends several tokens in
// one chunk (docs/validation.md), so there are fewer, longer gaps than
// tokens, by as much as the machine's load makes it fall behind.
func (s *vllmServer) testStreaming(t *testing.T) {
	for _, api := range []string{"chat", "completions"} {
		for _, c := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s c%d", api, c), func(t *testing.T) {
				n := 8 * c
				_, run := s.profile(t, "--endpoint-type", api, "--streaming", "--concurrency", fmt.Sprint(c),
					"--request-count", fmt.Sprint(n), "--warmup-request-count", "2", "--synthetic-input-tokens-mean", "100",
					"--synthetic-input-tokens-stddev", "0", "--output-tokens-mean", "32", "--reset-prefix-cache")
				m := genaiPerfJSON(t, run)
				if m["request_count"]["avg"] != float64(n) || m["error_count"]["avg"] != 0.0 {
					t.Errorf("requests %v, errors %v; want %d and 0", m["request_count"]["avg"], m["error_count"]["avg"], n)
				}
				if osl := m["output_sequence_length"]; osl["min"] != 32.0 || osl["max"] != 32.0 {
					t.Errorf("OSL min %v max %v, want exactly 32 (usage under ignore_eos)", osl["min"], osl["max"])
				}
				tel := readVLLMTelemetry(t, run)
				sw := tel.ServerWindow
				if sw == nil || sw.ServerCount != float64(n) || sw.ClientCount != n || sw.ClientInWindow != n {
					t.Errorf("server window %+v, want %d requests counted on both sides", sw, n)
				}
				if len(tel.TokenChecks) != 2 {
					t.Errorf("token checks %+v, want osl and isl", tel.TokenChecks)
				}
				for _, k := range tel.TokenChecks {
					t.Logf("%s %s c%d: %s client %.0f, server %.0f", validationMark, api, c, k.What, k.Client, k.Server)
					if !k.Agree || k.Client != k.Server {
						t.Errorf("%s: client %.0f, server %.0f, want equal (usage counts)", k.What, k.Client, k.Server)
					}
				}
				if f := tel.Server.FinishReasons; f["length"] != float64(n) || f["stop"] != 0 {
					t.Errorf("finish reasons %v, want %d length, 0 stop", f, n)
				}
				client, server := jsonAvg(m, "inter_token_latency"), tel.serverMean("tpot")
				gaps, perToken := clientChunkGapMS(t, run), tel.serverMean("itl")
				t.Logf("%s %s c%d: ITL (per request, = TPOT) client %.2f ms, server %.2f ms; chunk gaps pooled client %.2f ms, server per token %.2f ms",
					validationMark, api, c, client, server, gaps, perToken)
				if !(math.Abs(client-server) <= 1) {
					t.Errorf("client ITL mean %.2f ms, server TPOT mean %.2f ms: more than 1 ms apart", client, server)
				}
				for _, w := range tel.Warnings {
					if strings.Contains(w, "the server counted") || strings.Contains(w, "the client's") {
						t.Errorf("warning: %s", w)
					}
				}
			})
		}
	}
}

// clientChunkGapMS is the mean of every gap between consecutive content
// chunks of the run's completed requests, pooled, in ms: what vLLM's
// inter_token_latency_seconds histogram observes, one token a chunk.
func clientChunkGapMS(t *testing.T, run string) float64 {
	t.Helper()
	recs, _ := readRecords(t, filepath.Join(run, "records.parquet"))
	var sum float64
	var n int
	for _, r := range recs {
		for i := 1; i < len(r.Chunks) && r.Err == nil; i++ {
			sum += float64(r.Chunks[i] - r.Chunks[i-1])
			n++
		}
	}
	return sum / float64(n) / 1e6
}

// prefixSweep sends the same 8 prompts at concurrency 1 and then 2;
// RESET is endpoint's reset_prefix_cache.
const prefixSweep = `
def main(ctx):
    return experiment(
        name = "cache",
        endpoint = endpoint(url = ctx.vars["url"], model = "tiny", tokenizer = ctx.vars["tok"], token_count = "usage",
                            extra = {"ignore_eos": True}, reset_prefix_cache = RESET),
        dataset = synthetic(input_tokens = fixed(128), output_tokens = fixed(8), entries = 8, seed = 4),
        traffic = concurrency(1),
        sweep = sweep(concurrency = [1, 2]),
        requests = 8,
        same_prompts = True,
    )
`

// A sweep whose second point sends the first one's prompts again is
// served from vLLM's prefix cache, which its responses do not report
// (no --enable-prompt-tokens-details): the CACHE warning comes from the
// server's counters. With reset_prefix_cache the cache is emptied before
// each point and nothing is said.
func (s *vllmServer) testPrefixCache(t *testing.T) {
	for _, reset := range []string{"False", "True"} {
		dir, file := writeScenario(t, strings.Replace(prefixSweep, "RESET", reset, 1))
		r := runCLI(t, dir, "run", file, "--no-plots", "-D", "url="+s.base+"/v1", "-D", "tok="+s.tokenizer)
		if r.code != 0 {
			t.Fatalf("reset_prefix_cache=%s: exit %d\n%s%s", reset, r.code, r.stdout, r.stderr)
		}
		var hits []string
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.Contains(l, "prefix-cache hits") || strings.Contains(l, "CACHE:") {
				hits = append(hits, l)
			}
		}
		t.Logf("%s prefix cache, reset_prefix_cache=%s:\n%s", validationMark, reset, strings.Join(hits, "\n"))
		warned := strings.Contains(r.stdout, "CACHE: the server's prefix-cache hit share differs between points")
		if warned != (reset == "False") {
			t.Errorf("reset_prefix_cache=%s: CACHE warning %v\n%s", reset, warned, r.stdout)
		}
	}
}

// An open loop with 8 s between requests outlasts uvicorn's 5 s idle
// keep-alive: the server closes each idle connection, and no request
// fails for it.
func (s *vllmServer) testIdleClose(t *testing.T) {
	_, run := s.profile(t, "--streaming", "--request-rate", "0.125", "--request-distribution", "constant",
		"--request-count", "3", "--synthetic-input-tokens-mean", "16", "--output-tokens-mean", "8")
	m := genaiPerfJSON(t, run)
	t.Logf("%s idle close: 3 requests 8 s apart: errors %v, retried %v", validationMark, jsonAvg(m, "error_count"), m["llmbench"]["retried"])
	if jsonAvg(m, "error_count") != 0 {
		t.Errorf("errors after idle gaps: %v", m["llmbench"]["errors"])
	}
}

// gatedScenario measures one point with an absolute and a baseline gate,
// the cache reset before each run.
const gatedScenario = `
def main(ctx):
    return experiment(
        name = "chat",
        endpoint = endpoint(url = ctx.vars["url"], model = "tiny", tokenizer = ctx.vars["tok"], token_count = "usage",
                            extra = {"ignore_eos": True}, reset_prefix_cache = True),
        dataset = synthetic(input_tokens = fixed(64), output_tokens = fixed(16), seed = 9),
        traffic = concurrency(2),
        requests = 16,
        gates = ["error_rate < 1%", "ttft.p50 <= baseline * 3"],
    )
`

// A scenario with gates and a baseline against vLLM: the first run
// skips the baseline gate, the second judges it against the first (a
// tolerance of 200%, which no run of the same server exceeds), both exit
// 0, and with the cache reset before each the gate has no cache warning.
func (s *vllmServer) testGatesBaseline(t *testing.T) {
	dir, _ := writeScenario(t, gatedScenario)
	vars := []string{"-D", "url=" + s.base + "/v1", "-D", "tok=" + s.tokenizer}
	r := runCLI(t, dir, append([]string{"run", "s.star", "--out", "base", "--no-plots", "--allow-missing-baseline"}, vars...)...)
	if r.code != 0 {
		t.Fatalf("baseline run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, dir, append([]string{"run", "s.star", "--out", "cand", "--no-plots", "--baseline", "base"}, vars...)...)
	t.Logf("%s gates against the baseline: exit %d\n%s", validationMark, r.code, grepGateLines(r.stdout))
	if r.code != 0 {
		t.Fatalf("candidate run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if g := readGates(t, filepath.Join(dir, "cand")); !g.Passed || g.Total != 2 {
		t.Errorf("gates.json %+v, want 2 gates passed", g)
	}
	if strings.Contains(r.stdout, "prefix-cache hit share:") {
		t.Errorf("a cache warning with the cache reset before each run:\n%s", r.stdout)
	}
}

// vLLM 0.32 serves the Responses and Messages APIs too: streamed runs of
// each complete with usage-exact output lengths.
func (s *vllmServer) testAgentAPIs(t *testing.T) {
	for _, api := range []string{"responses", "messages"} {
		t.Run(api, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"profile", "--artifact-dir", filepath.Join(dir, "artifacts"), "-u", s.base, "-m", vllmModel,
				"--tokenizer", s.tokenizer, "--token-count", "usage", "--endpoint-type", api, "--streaming",
				"--concurrency", "2", "--request-count", "6", "--synthetic-input-tokens-mean", "50", "--output-tokens-mean", "16",
				"--extra-inputs", "ignore_eos:true"}
			r := runCLI(t, dir, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			m := genaiPerfJSON(t, realOnlyDir(filepath.Join(dir, "artifacts")))
			t.Logf("%s %s: %v completed, errors %v, OSL avg %v", validationMark, api, m["request_count"]["avg"], m["error_count"]["avg"], m["output_sequence_length"]["avg"])
			if m["request_count"]["avg"] != 6.0 || m["error_count"]["avg"] != 0.0 || m["output_sequence_length"]["avg"] != 16.0 {
				t.Errorf("requests %v, errors %v, OSL %v; want 6, 0, 16", m["request_count"]["avg"], m["error_count"]["avg"], m["output_sequence_length"]["avg"])
			}
		})
	}
}

// `vllm bench serve --save-result --save-detailed` against the same
// server, then its file imported: `report --view vllm` prints the TTFT,
// TPOT and ITL figures vllm bench wrote, recomputed from its per-request
// values, and compare takes the file as a baseline.
func (s *vllmServer) testVLLMBenchImport(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(filepath.Join(s.root, "venv", "bin", "vllm"), "bench", "serve", "--backend", "openai-chat",
		"--base-url", s.base, "--endpoint", "/v1/chat/completions", "--model", vllmModel, "--tokenizer", filepath.Join(s.root, "model"),
		"--dataset-name", "random", "--random-input-len", "64", "--random-output-len", "16", "--num-prompts", "12",
		"--max-concurrency", "2", "--ignore-eos", "--save-result", "--save-detailed", "--result-dir", dir,
		"--result-filename", "vllm-bench.json", "--percentile-metrics", "ttft,tpot,itl,e2el")
	cmd.Env = append(os.Environ(), "HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("vllm bench serve: %v\n%s", err, b)
	}
	src := filepath.Join(dir, "vllm-bench.json")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var own map[string]any
	if err := json.Unmarshal(b, &own); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "report", src, "--view", "vllm")
	if r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	for _, c := range []struct{ label, field string }{
		{"Mean TTFT (ms):", "mean_ttft_ms"}, {"Median TTFT (ms):", "median_ttft_ms"}, {"Mean TPOT (ms):", "mean_tpot_ms"},
		{"Mean ITL (ms):", "mean_itl_ms"}, {"P99 ITL (ms):", "p99_itl_ms"},
	} {
		want := strings.TrimSpace(fmt.Sprintf("%-40s %-10.2f", c.label, own[c.field].(float64)))
		t.Logf("%s vllm bench %s %.2f", validationMark, c.field, own[c.field].(float64))
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q (vllm bench's %s)\n%s", want, c.field, r.stdout)
		}
	}
	if c := runCLI(t, dir, "compare", src, src, "--metrics", "ttft.p50"); c.code != 0 {
		t.Errorf("compare of the result with itself: exit %d\n%s%s", c.code, c.stdout, c.stderr)
	}
}
