package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A client starved of CPU (GOMAXPROCS=1) asked for 20,000 requests a
// second, a rate one core cannot send, is marked client_limited with its
// reason, and --strict makes that exit 3. The same client at 40 a second
// is judged on what it measured of itself, which this machine's load can
// change: the test holds the console, the exit code and the file to the
// verdict the file records (the rules themselves are
// metrics.TestJudgeClient's, on given numbers).
func TestClientLimitedVerdict(t *testing.T) {
	t.Parallel()
	url := startSimCommand(t, "--ttft", "1ms", "--itl", "0ms")
	dir := t.TempDir()
	starved := []string{"GOMAXPROCS=1"}
	args := func(rate, count, dirName string, more ...string) []string {
		return append([]string{"profile", "-m", "m", "-u", url, "--request-rate", rate, "--request-count", count,
			"--output-tokens-mean", "4", "--artifact-dir", filepath.Join(dir, dirName)}, more...)
	}
	r := runCLIEnv(t, dir, starved, args("20000", "3000", "fast", "--strict")...)
	if r.code != 3 || !strings.Contains(r.stdout, "CLIENT-LIMITED: ") || !strings.Contains(r.stderr, "--strict: 1 points were limited by the client") {
		t.Fatalf("starved client: exit %d, want 3\n%s%s", r.code, r.stdout, r.stderr)
	}
	if v := clientVerdict(t, filepath.Join(dir, "fast", "m-openai-chat-request_rate20000.0")); !v.Limited || len(v.Reasons) == 0 {
		t.Errorf("profile_export_genai_perf.json: %+v", v)
	}
	r = runCLIEnv(t, dir, starved, args("40", "40", "slow", "--strict")...)
	v := clientVerdict(t, filepath.Join(dir, "slow", "m-openai-chat-request_rate40.0"))
	t.Logf("40 requests a second: %+v", v)
	switch {
	case v.Limited && (r.code != 3 || !strings.Contains(r.stdout, "CLIENT-LIMITED: "+v.Reasons[0])):
		t.Errorf("a client that judged itself limited: exit %d, want 3 with its reasons\n%s%s", r.code, r.stdout, r.stderr)
	case !v.Limited && (r.code != 0 || strings.Contains(r.stdout, "CLIENT-LIMITED") || !strings.Contains(r.stdout, "kept its load")):
		t.Errorf("a client that kept its load: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// clientVerdict reads what the client judged of itself from a point's
// profile_export_genai_perf.json.
func clientVerdict(t *testing.T, point string) (v struct {
	Limited bool     `json:"client_limited"`
	Reasons []string `json:"client_reasons"`
}) {
	t.Helper()
	var doc struct {
		LLMBench *json.RawMessage `json:"llmbench"`
	}
	b, err := os.ReadFile(filepath.Join(point, "profile_export_genai_perf.json"))
	if err != nil || json.Unmarshal(b, &doc) != nil || doc.LLMBench == nil || json.Unmarshal(*doc.LLMBench, &v) != nil {
		t.Fatalf("%s: %v", point, err)
	}
	return v
}
