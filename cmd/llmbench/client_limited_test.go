package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A client starved of CPU (GOMAXPROCS=1) asked for a rate it cannot keep
// against a server in its own process is marked client_limited with its
// reason, and --strict makes that exit 3; the same client at a rate it
// keeps is not marked, and says how much CPU it used.
func TestClientLimitedVerdict(t *testing.T) {
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
	var doc struct {
		LLMBench struct {
			Limited bool     `json:"client_limited"`
			Reasons []string `json:"client_reasons"`
		} `json:"llmbench"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "fast", "m-openai-chat-request_rate20000.0", "profile_export_genai_perf.json"))
	if err != nil || json.Unmarshal(b, &doc) != nil || !doc.LLMBench.Limited || len(doc.LLMBench.Reasons) == 0 {
		t.Errorf("profile_export_genai_perf.json (%v): %+v", err, doc.LLMBench)
	}
	r = runCLIEnv(t, dir, starved, args("40", "40", "slow", "--strict")...)
	if r.code != 0 || strings.Contains(r.stdout, "CLIENT-LIMITED") || !strings.Contains(r.stdout, "kept its load") {
		t.Errorf("unstarved client: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
