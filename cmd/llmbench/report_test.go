package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// `llmbench report` recomputes a run's GenAI-Perf JSON and CSV from its
// records.parquet alone, byte for byte, failures and goodput included.
func TestReportReproducesArtifacts(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "org/m", "-u", "sim://?itl=1ms&ttft=2ms&error_rate_500=0.1&reset_rate=0.05",
		"--streaming", "--concurrency", "4", "--request-count", "40", "--goodput", "time_to_first_token:50",
		"--output-tokens-mean", "8", "--synthetic-input-tokens-mean", "20")
	if r.code != 0 {
		t.Fatalf("profile: exit %d\n%s", r.code, r.stderr)
	}
	run := filepath.Join(dir, "artifacts", "org_m-openai-chat-concurrency4")
	names := []string{"profile_export_genai_perf.json", "profile_export_genai_perf.csv"}
	originals := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(run, n))
		if err != nil {
			t.Fatal(err)
		}
		originals[n] = b
		if err := os.Remove(filepath.Join(run, n)); err != nil {
			t.Fatal(err)
		}
	}
	if r := runCLI(t, dir, "report", filepath.Join(dir, "artifacts")); r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	for _, n := range names {
		got, err := os.ReadFile(filepath.Join(run, n))
		if err != nil || !bytes.Equal(got, originals[n]) {
			t.Errorf("%s re-rendered differs from the original (err %v)\n got %s\nwant %s", n, err, got, originals[n])
		}
	}
	if r := runCLI(t, dir, "report", t.TempDir()); r.code != 2 {
		t.Errorf("report of a folder without records: exit %d, want 2", r.code)
	}
}
