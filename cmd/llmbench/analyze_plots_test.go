package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// analyzePlotArgs sweep two quick points of a model named as the README
// names one, a Hugging Face id with a "/".
func analyzePlotArgs(dir string) []string {
	return []string{"analyze", "-m", "org/mymodel", "-u", "sim://?ttft=1ms&itl=1ms", "--sweep-type", "concurrency",
		"--sweep-list", "1,2", "--request-count", "10", "--output-tokens-mean", "4", "--streaming", "--generate-plots",
		"--artifact-dir", filepath.Join(dir, "an3")}
}

// `analyze -m org/mymodel --generate-plots` writes its sweep plots into
// the artifact folder, named as its point folders are (org_mymodel-...);
// they were all lost ("open an3/org/mymodel-...png: no such file") with
// exit 0.
func TestAnalyzeSweepPlotsOfModelID(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLI(t, dir, analyzePlotArgs(dir)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, stem := range []string{"throughput_vs_p99_ttft", "throughput_vs_p99_itl"} {
		if _, err := os.Stat(filepath.Join(dir, "an3", "org_mymodel-"+stem+".png")); err != nil {
			t.Errorf("sweep plot missing: %v (stderr %s)", err, r.stderr)
		}
	}
}

// A sweep plot asked for that cannot be written is not a warning lost in
// the output: once every other file is written, analyze exits 3 naming
// the file.
func TestAnalyzeSweepPlotWriteFailureExitsThree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	blocker := filepath.Join(dir, "an3", "org_mymodel-throughput_vs_p99_ttft.png")
	if err := os.MkdirAll(filepath.Join(blocker, "x"), 0o755); err != nil { // a folder where the plot goes
		t.Fatal(err)
	}
	r := runCLI(t, dir, analyzePlotArgs(dir)...)
	if r.code != 3 || !strings.Contains(r.stderr, "--generate-plots") || !strings.Contains(r.stderr, "org_mymodel-throughput_vs_p99_ttft.png") {
		t.Fatalf("exit %d, stderr %s; want 3 naming the plot", r.code, r.stderr)
	}
	for _, f := range []string{analyzeCSVName, "summary.json"} {
		if _, err := os.Stat(filepath.Join(dir, "an3", f)); err != nil {
			t.Errorf("%s not written before the failure: %v", f, err)
		}
	}
}

// run treats its sweep plots alike: one that cannot be written is exit 3
// after everything else is written, report.html still shows it, and the
// other plots are still written.
func TestRunSweepPlotWriteFailureExitsThree(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = "sim://?ttft=1ms&itl=1ms", model = "m"),
                      dataset = synthetic(input_tokens = fixed(8), output_tokens = fixed(4)),
                      traffic = concurrency(1), requests = 10, sweep = sweep(concurrency = [1, 2]))
`)
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(filepath.Join(out, "e-throughput_vs_p99_ttft.png", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "run", file, "--out", out)
	if r.code != 3 || !strings.Contains(r.stderr, "e-throughput_vs_p99_ttft.png") {
		t.Fatalf("exit %d, stderr %s; want 3 naming the plot", r.code, r.stderr)
	}
	for _, f := range []string{"e-throughput_vs_p99_itl.png", "summary.json", "gates.json", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}
