package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `llmbench report` recomputes a run's GenAI-Perf JSON and CSV from its
// records.parquet alone, byte for byte, failures and goodput included.
func TestReportReproducesArtifacts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "org/m", "-u", "sim://?itl=1ms&ttft=2ms&error_rate_500=0.1&reset_rate=0.05", "--max-error-rate", "100%",
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
	if _, err := os.Stat(filepath.Join(run, "plots", "time_to_first_token.png")); err != nil {
		t.Errorf("report did not re-render the plots: %v", err)
	}
	if r := runCLI(t, dir, "report", t.TempDir()); r.code != 2 {
		t.Errorf("report of a folder without records: exit %d, want 2", r.code)
	}
}

// A GenAI-Perf profile_export.json is imported and its metrics recomputed
// (timing metrics do not depend on the tokenizer).
func TestReportImportsGenAIPerfExport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, err := os.ReadFile("../../runtime/paexport/testdata/example_profile_export.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "profile_export.json"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "report", dir, "--tokenizer", llama3)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	m := genaiPerfJSON(t, filepath.Join(dir, "llmbench-report"))
	if m["request_throughput"]["avg"] != 142.85714285714286 || m["time_to_first_token"]["p90"] != 4.8999999999999995 {
		t.Errorf("recomputed metrics differ from GenAI-Perf's: %v %v", m["request_throughput"], m["time_to_first_token"])
	}
	if m["output_sequence_length"]["max"] != 7.0 { // "I don't cook food at home" under Llama 3
		t.Errorf("OSL = %v", m["output_sequence_length"])
	}
	if own := m["llmbench"]; own["tokenizer"] != llama3 || own["token_counting"] != "tokenizer" {
		t.Errorf("llmbench block: tokenizer %v, token_counting %v; want the --tokenizer used", own["tokenizer"], own["token_counting"])
	}
}

// TestReportCorruptRecords: a records.parquet with one damaged byte that
// made parquet-go panic is invalid input naming the file (exit 2), not a
// crash with a Go stack trace.
func TestReportCorruptRecords(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "reports", "records", "testdata", "fixtures", "v3.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	data[30490] ^= 0xff // a dictionary index: unsafe.Slice of a nil pointer inside parquet-go v0.32.0
	dir := t.TempDir()
	file := filepath.Join(dir, "point", "records.parquet")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "report", dir)
	if r.code != 2 || !strings.Contains(r.stderr, file+": corrupt at rows 1 to 1024") || strings.Contains(r.stderr, "goroutine") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 naming %s as corrupt", r.code, r.stderr, file)
	}
}
