package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An analyze sweep given --api-key and a credential header writes neither
// anywhere: its checkpoint keeps only the mark that a key was given. A
// --resume without the key is refused (exit 2, naming --api-key) before
// any traffic, since the points would otherwise be measured again
// unauthenticated; with the key again it skips the finished points.
func TestAnalyzeCheckpointHoldsNoAPIKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"analyze", "-m", "m", "-u", "sim://", "--sweep-list", "1,2", "--request-count", "4",
		"-H", "X-Api-Token: SECRET-HEADER"}
	r := runCLI(t, dir, append(args, "--api-key", "SECRET-KEY")...)
	if r.code != 0 {
		t.Fatalf("analyze: exit %d\n%s", r.code, r.stderr)
	}
	for _, out := range []string{r.stdout, r.stderr} {
		if strings.Contains(out, "SECRET") {
			t.Errorf("a credential reached the console:\n%s", out)
		}
	}
	assertNoSecretIn(t, dir)
	cp, err := os.ReadFile(filepath.Join(dir, "checkpoint", "checkpoint.json"))
	if err != nil || !strings.Contains(string(cp), `"api_key_given": true`) {
		t.Errorf("the checkpoint does not mark that a key was given (%v):\n%s", err, cp)
	}

	r = runCLI(t, dir, append(args, "--resume")...)
	if r.code != 2 || !strings.Contains(r.stderr, "--api-key") {
		t.Errorf("resume without the key: exit %d, want 2 naming --api-key\n%s", r.code, r.stderr)
	}
	r = runCLI(t, dir, append(args, "--resume", "--api-key", "SECRET-KEY")...)
	if r.code != 0 || !strings.Contains(r.stdout, "found in checkpoint - skipping profiling") {
		t.Errorf("resume with the key: exit %d, want its points skipped\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	assertNoSecretIn(t, dir)
}

// A checkpoint written before the key was kept out of it (its point
// configs hold "APIKey": "<the key>") is cleaned on resume: its points are
// still found, the key is asked for again, and the rewritten file no
// longer holds it.
func TestAnalyzeResumeScrubsAnOldCheckpointsKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"analyze", "-m", "m", "-u", "sim://", "--sweep-list", "1,2", "--request-count", "4"}
	if r := runCLI(t, dir, append(args, "--api-key", "SECRET-KEY")...); r.code != 0 {
		t.Fatalf("analyze: exit %d\n%s", r.code, r.stderr)
	}
	path := filepath.Join(dir, "checkpoint", "checkpoint.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// What an older llmbench wrote: the key in every point's config.
	old := strings.ReplaceAll(string(b), `"sweep_point"`, `"APIKey": "SECRET-KEY", "sweep_point"`)
	old = strings.ReplaceAll(old, `"api_key_given": true,`, "")
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, dir, append(args, "--resume")...); r.code != 2 || !strings.Contains(r.stderr, "--api-key") {
		t.Errorf("resume of an old checkpoint without the key: exit %d, want 2 naming --api-key\n%s", r.code, r.stderr)
	}
	more := []string{"analyze", "-m", "m", "-u", "sim://", "--sweep-list", "1,2,4", "--request-count", "4"}
	r := runCLI(t, dir, append(more, "--resume", "--api-key", "SECRET-KEY")...)
	if r.code != 0 || strings.Count(r.stdout, "found in checkpoint - skipping profiling") != 2 {
		t.Errorf("resume with the key: exit %d, want the 2 old points skipped\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	assertNoSecretIn(t, dir)
}

// A scenario's endpoint(headers=...) reaches no file of a run, its
// checkpoint included, nor the console, also when the run is resumed.
func TestRunWritesNoEndpointHeader(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = "sim://", model = "m",
            headers = {"Authorization": "Bearer SECRET-AUTH", "X-Api-Key": "SECRET-X"}),
        dataset = synthetic(input_tokens = 8, output_tokens = 4), traffic = concurrency(1), requests = 3,
        sweep = sweep(concurrency = [1, 2]))
`)
	out := filepath.Join(dir, "out")
	for _, extra := range [][]string{nil, {"--resume"}} {
		r := runCLI(t, dir, append([]string{"run", file, "--out", out, "--no-plots"}, extra...)...)
		if r.code != 0 {
			t.Fatalf("run %v: exit %d\n%s", extra, r.code, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, "SECRET") {
			t.Errorf("run %v: a header value reached the console:\n%s%s", extra, r.stdout, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "checkpoint.json")); err != nil {
		t.Errorf("no checkpoint to check: %v", err)
	}
	assertNoSecretIn(t, dir)
}
