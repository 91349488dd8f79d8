package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An error budget stops the run at the first point whose failures exceed
// it: exit 3 naming the budget and the most common error, with what
// finished written and marked partial; the points after it never run.
func TestErrorBudgetStopsTheRun(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, `
def main(ctx):
    ds = synthetic(input_tokens = fixed(8), output_tokens = fixed(4))
    ep = endpoint(url = "sim://?error_rate_500=0.6&seed=3", model = "m")
    return experiment(name = "e", endpoint = ep, dataset = ds, traffic = concurrency(1), requests = 200,
                      sweep = sweep(concurrency = [1, 2]), error_budget = "10%")
`)
	out := filepath.Join(dir, "out")
	r := runCLI(t, dir, "run", file, "--out", out, "--no-plots")
	if r.code != 3 || !strings.Contains(r.stderr, "error budget exceeded") || !strings.Contains(r.stderr, "budget 10%") ||
		!strings.Contains(r.stderr, "http 500") {
		t.Fatalf("exit %d, stderr %q; want exit 3 naming the budget", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "e", "concurrency2")); err == nil {
		t.Error("the point after the exceeded budget ran")
	}
	var summary struct {
		Partial bool `json:"partial"`
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil || json.Unmarshal(b, &summary) != nil || !summary.Partial {
		t.Errorf("summary.json (%v) not marked partial: %s", err, b)
	}
	if _, err := os.Stat(filepath.Join(out, "e", "concurrency1", "records.parquet")); err != nil {
		t.Errorf("the stopped point's records are missing: %v", err)
	}
}

// Profile's --max-error-rate is the same budget; a budget the run stays
// within changes nothing, and a malformed one is exit 2 naming the flag.
func TestMaxErrorRateFlag(t *testing.T) {
	t.Parallel()
	// Short answers: what is judged is the share of failures, and 40
	// default-length answers took 45 s of the suite.
	base := []string{"profile", "-m", "m", "--request-count", "40", "--output-tokens-mean", "8"}
	r := runCLI(t, t.TempDir(), append(base, "-u", "sim://?error_rate_500=1", "--max-error-rate", "0.05")...)
	if r.code != 3 || !strings.Contains(r.stderr, "error budget exceeded") {
		t.Errorf("all failing: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLI(t, t.TempDir(), append(base, "-u", "sim://", "--max-error-rate", "0%")...); r.code != 0 {
		t.Errorf("no failures under a 0%% budget: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, bad := range []string{"abc", "150%", "-1", "NaN"} {
		r := runCLI(t, t.TempDir(), append(base, "-u", "sim://", "--max-error-rate", bad)...)
		if r.code != 2 || !strings.Contains(r.stderr, "--max-error-rate") {
			t.Errorf("--max-error-rate %s: exit %d, stderr %q", bad, r.code, r.stderr)
		}
	}
}
