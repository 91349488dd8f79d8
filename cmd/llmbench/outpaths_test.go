package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsApartFromInputs: every writing command refuses, before
// writing anything, an output that is, contains or lies inside one of its
// inputs, naming the flag and both paths (exit 2): compare's files over
// the sets it compares, run's --out over its baseline, profile's and
// analyze's --artifact-dir over their prompts file.
func TestOutputsApartFromInputs(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = "sim://?itl=1ms&ttft=1ms", model = "m"),
                      dataset = synthetic(input_tokens = 8, output_tokens = 4), traffic = concurrency(2), requests = 6)
`)
	for _, out := range []string{"base", "cand"} {
		if r := runCLI(t, dir, "run", file, "--out", out, "--no-plots"); r.code != 0 {
			t.Fatalf("run --out %s: exit %d\n%s", out, r.code, r.stderr)
		}
	}
	records := filepath.Join(dir, "base", "e", "concurrency2", "records.parquet")
	before, err := os.ReadFile(records)
	if err != nil {
		t.Fatal(err)
	}
	prompts := filepath.Join(dir, "prompts", "in.jsonl")
	if err := os.MkdirAll(filepath.Dir(prompts), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prompts, []byte(`{"text": "hello there"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	profile := []string{"-m", "m", "-u", "sim://?itl=1ms&ttft=1ms", "--request-count", "2"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "base", "cand", "--json", records}, "--json " + records + " lies inside the input base"},
		{[]string{"compare", "base", "cand", "--summary-md", "base/summary.md"}, "lies inside the input base"},
		{[]string{"compare", "base", "cand", "--plot-dir", "."}, "contains the input base"},
		{[]string{"run", file, "--baseline", "base", "--out", "base", "--no-plots"}, "--out base is the input "},
		{[]string{"run", file, "--out", "base", "--junit", "cand/gates.xml", "--baseline", "cand"}, "--junit"},
		{append([]string{"profile", "--input-file", prompts, "--artifact-dir", "prompts"}, profile...), "--artifact-dir prompts contains the input"},
		{append([]string{"analyze", "--input-file", prompts, "--artifact-dir", filepath.Dir(prompts), "--sweep-list", "1,2"}, profile...), "contains the input"},
	} {
		r := runCLI(t, dir, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, want 2 with %q\n%s", strings.Join(c.args, " "), r.code, c.want, r.stderr)
		}
	}
	if after, err := os.ReadFile(records); err != nil || !bytes.Equal(after, before) {
		t.Errorf("a refused command changed %s: %v", records, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "prompts", "*")); len(left) != 1 {
		t.Errorf("a refused profile or analyze wrote into the prompts folder: %v", left)
	}
}
