package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `llmbench report OUT` rebuilds a run's sweep-level outputs from its
// records alone: the sweep table and plots, report.html (per-point plots
// and per-component tables included) and summary.json, byte for byte,
// gates included (they are read back from gates.json).
func TestReportRebuildsRunFolder(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, `
target = endpoint(url = "sim://?itl=1ms&ttft=2ms", model = "m")
chat = synthetic(input_tokens = fixed(10), output_tokens = fixed(5), name = "chat")
rag = synthetic(input_tokens = fixed(40), output_tokens = fixed(3), name = "rag")

def main(ctx):
    return experiment(name = "e", endpoint = target, dataset = mix([chat, rag], weights = [0.5, 0.5]),
                      traffic = concurrency(1), sweep = sweep(concurrency = [1, 2, 4]), requests = 8,
                      gates = ["ttft.p99 < 10s", "error_rate < 1% @ concurrency=2"])
`)
	if r := runCLI(t, dir, "run", file); r.code != 0 {
		t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(dir, "out")
	summary, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	sweepPlots, _ := filepath.Glob(filepath.Join(out, "e-*.png"))
	if len(sweepPlots) == 0 {
		t.Fatal("the run wrote no sweep plots")
	}
	for _, path := range append(sweepPlots, filepath.Join(out, "summary.json"), filepath.Join(out, "report.html")) {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}

	r := runCLI(t, dir, "report", out)
	if r.code != 0 {
		t.Fatalf("report: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "== e: sweep ==") || !strings.Contains(r.stdout, "Knee (ttft.p99 < 10000ms)") {
		t.Errorf("no sweep table on the console:\n%s", r.stdout)
	}
	for _, path := range sweepPlots {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("sweep plot not rewritten: %v", err)
		}
	}
	if got, err := os.ReadFile(filepath.Join(out, "summary.json")); err != nil || !bytes.Equal(got, summary) {
		t.Errorf("summary.json differs from the run's (err %v)\n got %s\nwant %s", err, got, summary)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	checkReportPage(t, string(page), "e", []string{"concurrency1", "concurrency2", "concurrency4"})
}

// checkReportPage checks report.html shows the sweep, its plots, and each
// point's plots and per-component table.
func checkReportPage(t *testing.T, page, exp string, points []string) {
	t.Helper()
	for _, want := range []string{"<h3>Sweep</h3>", "<h3>" + exp + " · sweep</h3>", "ttft.p99 &lt; 10s"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	for _, pt := range points {
		if !strings.Contains(page, "Dataset components · "+pt) {
			t.Errorf("report.html has no component table for %s", pt)
		}
		_, rest, ok := strings.Cut(page, "<h3>"+exp+" · "+pt+"</h3>")
		group, _, _ := strings.Cut(rest, "<h3>")
		if !ok || !strings.Contains(group, "<img") {
			t.Errorf("report.html has no plot of point %s", pt)
		}
	}
}

// An adaptive sweep read back by `report` is the sweep that ran: every
// point in its own folder, and summary.json byte for byte — the search
// block, the saturation verdict and its source included — because the
// saved plan replays the sweep's decisions from the stored points.
func TestReportReproducesAdaptiveSweeps(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, adaptiveHeader+`
def main(ctx):
    return [
        experiment(name = "sat", endpoint = target, dataset = ds, traffic = concurrency(1), requests = 8,
                   sweep = until_saturation(limit = 8), gates = ["ttft.p99 < 10s"]),
        experiment(name = "srch", endpoint = target, dataset = ds, traffic = concurrency(1), requests = 8,
                   sweep = search("ttft.p99 < 10s", lo = 1, hi = 4)),
    ]
`)
	if r := runCLI(t, dir, "run", file, "--no-plots"); r.code != 0 {
		t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(dir, "out")
	for exp, want := range map[string]int{"sat": 2, "srch": 2} {
		folders, _ := filepath.Glob(filepath.Join(out, exp, "concurrency*"))
		if len(folders) < want {
			t.Errorf("%s: %d point folders %v, want one per point measured (at least %d)", exp, len(folders), folders, want)
		}
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"source": "until_saturation"`, `"search": {`} {
		if !strings.Contains(string(summary), want) {
			t.Fatalf("the run's summary.json lacks %s:\n%s", want, summary)
		}
	}
	if err := os.Remove(filepath.Join(out, "summary.json")); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, dir, "report", out); r.code != 0 {
		t.Fatalf("report: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got, err := os.ReadFile(filepath.Join(out, "summary.json")); err != nil || !bytes.Equal(got, summary) {
		t.Errorf("summary.json differs from the run's (err %v)\n got %s\nwant %s", err, got, summary)
	}
}

// A run folder written before points saved their plan (records schema 1)
// is still read back, through the version 1 reader: its point re-rendered,
// its summary.json rebuilt from the run description and gates.json.
func TestReportReadsSchemaOneRunFolder(t *testing.T) {
	dir := t.TempDir()
	point := filepath.Join(dir, "out", "chat-capacity", "concurrency4")
	if err := os.MkdirAll(point, 0o755); err != nil {
		t.Fatal(err)
	}
	fixture, err := os.ReadFile("../../reports/records/testdata/fixtures/v1.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(point, "records.parquet"), fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	gates := `{"passed": true, "verdicts": [{"experiment": "chat-capacity", "point": "concurrency4", "gate": "error_rate < 50%", "passed": true, "message": ""}]}`
	if err := os.WriteFile(filepath.Join(dir, "out", "gates.json"), []byte(gates), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "report", filepath.Join(dir, "out"))
	if r.code != 0 {
		t.Fatalf("report: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	summary, err := os.ReadFile(filepath.Join(dir, "out", "summary.json"))
	if err != nil || !strings.Contains(string(summary), `"label": "concurrency4"`) || !strings.Contains(string(summary), `"gate": "error_rate < 50%"`) {
		t.Errorf("summary.json from a version 1 folder: %v\n%s", err, summary)
	}
	if _, err := os.Stat(filepath.Join(point, "profile_export_genai_perf.json")); err != nil {
		t.Error(err)
	}
}
