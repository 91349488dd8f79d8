package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A profile killed outright (SIGKILL: no chance to write footers) leaves a
// records.parquet that `llmbench report` recovers: every row group flushed
// before the kill is summarized from records.recovered.parquet, written
// beside the killed file, which is left as it was.
func TestReportRecoversKilledRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(binary, "profile", "-m", "m", "-u", "sim://?itl=1ms&ttft=1ms", "--streaming",
		"--concurrency", "4", "--request-count", "1000000", "--output-tokens-mean", "5")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LLMBENCH_RECORDS_FLUSH_INTERVAL=100ms")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	point := filepath.Join(dir, "artifacts", "m-openai-chat-concurrency4")
	file := filepath.Join(point, "records.parquet")
	// Several flushes happen within a second; the kill itself is what is
	// under test, not when it lands.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if st, err := os.Stat(file); err == nil && st.Size() > 40<<10 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()

	r := runCLI(t, dir, "report", point)
	if r.code != 0 || !strings.Contains(r.stderr, "has no footer") || !strings.Contains(r.stderr, "into "+filepath.Join(point, "records.recovered.parquet")) {
		t.Fatalf("report exit %d\nstderr: %s", r.code, r.stderr)
	}
	n := genaiPerfJSON(t, point)["request_count"]["avg"].(float64)
	if n < 1 || n >= 1000000 {
		t.Errorf("recovered request_count = %v", n)
	}
	if !strings.Contains(r.stdout, "Token counting: usage") {
		t.Errorf("the recovered point lost how its tokens were counted:\n%s", r.stdout)
	}
	// The raw export the kill cut is repaired, beside it, to the completed
	// requests the records hold, so importing it gives the same count.
	export, err := os.ReadFile(filepath.Join(point, "profile_export.recovered.json"))
	if err != nil || !json.Valid(export) || !strings.Contains(r.stderr, "profile_export.json was cut by the crash: repaired") {
		t.Fatalf("profile_export.json not repaired (%v):\n%s", err, r.stderr)
	}
	imported := filepath.Join(dir, "imported")
	if err := os.MkdirAll(imported, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(imported, "profile_export.json"), export, 0o644); err != nil {
		t.Fatal(err)
	}
	var kept, held int
	if _, err := fmt.Sscanf(r.stderr[strings.Index(r.stderr, "keeping "):], "keeping %d of the %d", &kept, &held); err != nil || held != int(n) || kept < 1 || kept > held {
		t.Fatalf("repair kept %d of %d (%v), records hold %v:\n%s", kept, held, err, n, r.stderr)
	}
	if r := runCLI(t, dir, "report", filepath.Join(imported, "profile_export.json")); r.code != 0 ||
		!strings.Contains(r.stdout, fmt.Sprintf("Requests: %d completed, 0 failed", kept)) {
		t.Errorf("importing the repaired export: exit %d, want %d requests\n%s%s", r.code, kept, r.stdout, r.stderr)
	}
	again := runCLI(t, dir, "report", point)
	if again.code != 0 || !strings.Contains(again.stderr, "recovered earlier") {
		t.Errorf("second report: exit %d, stderr %s", again.code, again.stderr)
	}
}

// A scenario run killed in its first point (no gates.json, no
// summary.json yet) gets both rebuilt by report from the records, marked
// partial, check() not run.
func TestReportRebuildsKilledScenarioRun(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = "sim://?itl=1ms&ttft=1ms", model = "m"),
                      dataset = synthetic(input_tokens = 8, output_tokens = 5), traffic = concurrency(4),
                      requests = 1000000, sweep = sweep(concurrency = [4, 8]))
`)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(binary, "run", file, "--out", out, "--no-plots")
	cmd.Env = append(os.Environ(), "LLMBENCH_RECORDS_FLUSH_INTERVAL=100ms")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	records := filepath.Join(out, "e", "concurrency4", "records.parquet")
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if st, err := os.Stat(records); err == nil && st.Size() > 40<<10 {
			break
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if r := runCLI(t, dir, "report", out); r.code != 0 {
		t.Fatalf("report: exit %d\n%s", r.code, r.stderr)
	}
	var summary struct {
		Partial     bool `json:"partial"`
		Experiments []struct {
			Points []struct {
				Label   string `json:"label"`
				Partial bool   `json:"partial"`
			} `json:"points"`
		} `json:"experiments"`
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil || json.Unmarshal(b, &summary) != nil || !summary.Partial || len(summary.Experiments) != 1 ||
		len(summary.Experiments[0].Points) != 1 || !summary.Experiments[0].Points[0].Partial {
		t.Fatalf("summary.json (%v): %s", err, b)
	}
	if html, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(html), "Partial results") {
		t.Errorf("report.html not rebuilt as partial (%v)", err)
	}
}
