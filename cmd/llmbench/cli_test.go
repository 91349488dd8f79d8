package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmbench/llmbench/transport/sim"
)

// binary is the llmbench executable built once for these end-to-end tests:
// they run it as a user would, against servers on 127.0.0.1.
var binary string

func TestMain(m *testing.M) {
	flag.Parse()
	waitBound()
	dir, err := os.MkdirTemp("", "llmbench-cli")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "llmbench")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building llmbench: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// parallelTests is how many tests marked t.Parallel() run at once when
// -parallel is not given. They wait on simulated servers' clocks (a
// token every few milliseconds), not on the processor — the package's
// tests spend about a fifth of their wall time on it — so go test's
// default of one per core would leave the machine idle. A test that
// judges a decision (a regression found, a gate failed) does it on runs
// storedruntest writes, or holds the verdict to the measured values it
// reads back, or judges only what the machine's load cannot reverse (a
// wait that load can only lengthen), so none needs the machine to itself.
const parallelTests = 8

// waitBound raises -parallel to parallelTests unless it was given.
func waitBound() {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(parallelTests))
	}
}

type cliResult struct {
	code           int
	stdout, stderr string
}

func runCLI(t *testing.T, dir string, args ...string) cliResult {
	t.Helper()
	return runCLIEnv(t, dir, nil, args...)
}

// runCLIEnv runs llmbench with extra environment variables.
func runCLIEnv(t *testing.T, dir string, env []string, args ...string) cliResult {
	t.Helper()
	return runCommand(t, exec.Command(binary, args...), dir, env)
}

// runCommand runs cmd in dir with extra environment variables and returns
// its exit code and output.
func runCommand(t *testing.T, cmd *exec.Cmd, dir string, env []string) cliResult {
	t.Helper()
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	return execute(t, cmd)
}

// execute runs cmd as set up, giving its exit code and output.
func execute(t *testing.T, cmd *exec.Cmd) cliResult {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return cliResult{code, out.String(), errb.String()}
}

// genaiPerfJSON reads a run's profile_export_genai_perf.json.
func genaiPerfJSON(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "profile_export_genai_perf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestProfileAgainstSimulator(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "org/model", "-u", "sim://?itl=1ms&ttft=5ms", "--streaming",
		"--concurrency", "4", "--request-count", "40", "--warmup-request-count", "4",
		"--synthetic-input-tokens-mean", "50", "--output-tokens-mean", "20", "--goodput", "time_to_first_token:1000", "inter_token_latency:500")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "NVIDIA GenAI-Perf | LLM Metrics") {
		t.Errorf("no GenAI-Perf table in output:\n%s", r.stdout)
	}
	run := filepath.Join(dir, "artifacts", "org_model-openai-chat-concurrency4")
	for _, f := range []string{"inputs.json", "profile_export.json", "profile_export_genai_perf.json", "profile_export_genai_perf.csv"} {
		if _, err := os.Stat(filepath.Join(run, f)); err != nil {
			t.Errorf("missing artifact: %v", err)
		}
	}
	m := genaiPerfJSON(t, run)
	if got := m["request_count"]["avg"]; got != 40.0 {
		t.Errorf("request_count = %v, want 40", got)
	}
	if got := m["output_sequence_length"]["avg"]; got != 20.0 {
		t.Errorf("OSL avg = %v, want 20", got)
	}
	if got := m["input_sequence_length"]["avg"]; got != 50.0 {
		t.Errorf("ISL avg = %v, want 50", got)
	}
	if got := m["request_goodput"]["avg"]; got != m["request_throughput"]["avg"] {
		t.Errorf("goodput %v != throughput %v with generous SLOs", got, m["request_throughput"]["avg"])
	}
	if got := m["error_count"]["avg"]; got != 0.0 {
		t.Errorf("error_count = %v", got)
	}
}

// A run against a server that fails, cuts streams and sends malformed
// events completes, exits 0, and counts exactly what the server did.
func TestProfileCountsServerFaults(t *testing.T) {
	t.Parallel()
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL, cfg.Seed = 2*time.Millisecond, time.Millisecond, 3
	cfg.ErrorRate429, cfg.ErrorRate500, cfg.ResetRate, cfg.MalformedRate = 0.1, 0.1, 0.1, 0.1
	srv, err := sim.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "m", "-u", srv.URL(), "--streaming", "--concurrency", "8",
		"--request-count", "200", "--synthetic-input-tokens-mean", "20", "--output-tokens-mean", "10",
		"--max-error-rate", "100%") // the faults are wanted: without a budget, 40% would be exit 3
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	st := srv.Stats()
	m := genaiPerfJSON(t, filepath.Join(dir, "artifacts", "m-openai-chat-concurrency8"))
	faults := st.Status429 + st.Status500 + st.Resets + st.Malformed
	if got := m["error_count"]["avg"].(float64); int64(got) != faults || faults == 0 {
		t.Errorf("error_count %v, server injected %d faults (%+v)", got, faults, st)
	}
	if got := m["request_count"]["avg"].(float64); int64(got)+faults != 200 {
		t.Errorf("request_count %v + faults %d != 200", got, faults)
	}
	// records.parquet holds every measured request, failed ones included.
	recs, _ := readRecords(t, filepath.Join(dir, "artifacts", "m-openai-chat-concurrency8", "records.parquet"))
	failed := 0
	for _, r := range recs {
		if r.Err != nil {
			failed++
		}
	}
	if len(recs) != 200 || int64(failed) != faults {
		t.Errorf("records.parquet: %d rows with %d failures, want 200 with %d", len(recs), failed, faults)
	}
	for _, class := range []string{"http", "reset", "malformed"} {
		if !strings.Contains(r.stdout, class) {
			t.Errorf("error class %q not listed on the console:\n%s", class, r.stdout)
		}
	}
}

func TestBadInputExitsTwoWithOneLine(t *testing.T) {
	cases := [][]string{
		{"profile", "-m", "m", "--concurrency", "-1"},
		{"profile", "-m", "m", "--endpoint-type", "rankings", "--batch-size-text", "0"},
		{"profile", "-m", "m", "--concurrency", "2", "--request-rate", "3"},
		{"profile", "-m", "m", "--no-such-flag"},
		{"profile", "--concurrency", "2"},
		{"profile", "-m", "m", "-u", "sim://?bogus=1"},
		{"profile", "-m", "m", "--extra-inputs", "a:1", "--extra-inputs", "a:2"},
		{"profile", "-m", "m", "--goodput", "latency:5"},
		{"profile", "-m", "m", "--profile-export-file", "x/y.json"},
		{"profile", "-m", "m", "--concurrency", "many"},
	}
	for _, args := range cases {
		r := runCLI(t, t.TempDir(), args...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 2 || len(lines) != 1 || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, r.code, r.stderr)
		}
	}
}

func TestUnreachableTargetExitsThree(t *testing.T) {
	r := runCLI(t, t.TempDir(), "profile", "-m", "m", "-u", "127.0.0.1:1", "--request-count", "5")
	if r.code != 3 || !strings.Contains(r.stderr, "unreachable") {
		t.Errorf("exit %d, stderr %q; want 3 and 'unreachable'", r.code, r.stderr)
	}
}

// Ctrl-C stops sending, keeps what completed, writes it, and exits 130.
func TestInterruptWritesPartialResults(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(binary, "profile", "-m", "m", "-u", "sim://?itl=2ms&ttft=2ms", "--streaming",
		"--concurrency", "4", "--request-count", "100000", "--output-tokens-mean", "5")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit = %v, want 130\n%s", err, out.String())
	}
	m := genaiPerfJSON(t, filepath.Join(dir, "artifacts", "m-openai-chat-concurrency4"))
	if n := m["request_count"]["avg"].(float64); n < 1 || n >= 100000 {
		t.Errorf("partial request_count = %v", n)
	}
}

func TestSimCommandServes(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binary, "sim", "--addr", "127.0.0.1:0", "--max-batch", "4")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(line)
	var url string
	for _, f := range fields {
		if strings.HasPrefix(f, "http://") {
			url = strings.TrimSuffix(f, "/v1")
		}
	}
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "m", "-u", strings.TrimPrefix(url, "http://"), "--streaming",
		"--request-count", "3", "--output-tokens-mean", "3", "--synthetic-input-tokens-mean", "5")
	if r.code != 0 {
		t.Errorf("profile against `llmbench sim` (%s): exit %d\n%s", url, r.code, r.stderr)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Errorf("sim did not stop cleanly on SIGINT: %v", err)
	}
	r = runCLI(t, dir, "sim", "--max-batch", "0")
	if r.code != 2 || !strings.Contains(r.stderr, "max_batch") {
		t.Errorf("invalid sim flag: exit %d, %q", r.code, r.stderr)
	}
}
