package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/transport/sim"
)

// `run --resume` skips every run of a point OUT/checkpoint.json holds, as
// `analyze --resume` does: a finished scenario resumed sends nothing and
// writes the same summary.json; a scenario changed in what it measures
// measures again.
func TestRunResumeSkipsFinishedRuns(t *testing.T) {
	t.Parallel()
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL, cfg.Seed = 2*time.Millisecond, time.Millisecond, 1
	srv, err := sim.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir, file := writeScenario(t, `
target = endpoint(url = env("LLM_URL"), model = "m")
def main(ctx):
    return experiment(name = "e", endpoint = target, dataset = synthetic(input_tokens = fixed(8), output_tokens = fixed(4)),
                      traffic = concurrency(1), sweep = sweep(concurrency = [1, 2]), repeats = 2,
                      requests = int(ctx.vars.get("requests", "6")), gates = ["error_rate < 1%"])
`)
	env := []string{"LLM_URL=" + srv.URL()}
	if r := runCLIEnv(t, dir, env, "run", file, "--no-plots"); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	summary, _ := os.ReadFile(filepath.Join(dir, "out", "summary.json"))
	sent := srv.Stats().Requests

	r := runCLIEnv(t, dir, env, "run", file, "--no-plots", "--resume")
	if r.code != 0 || strings.Count(r.stdout, "found in checkpoint - skipping") != 4 {
		t.Fatalf("resume: exit %d, want 4 runs skipped\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got := srv.Stats().Requests - sent; got != 0 {
		t.Errorf("resuming a finished run sent %d requests", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "out", "summary.json")); !bytes.Equal(got, summary) {
		t.Errorf("summary.json after resume differs:\n%s\nwant\n%s", got, summary)
	}

	sent = srv.Stats().Requests
	if r := runCLIEnv(t, dir, env, "run", file, "--no-plots", "--resume", "-D", "requests=4"); r.code != 0 || strings.Contains(r.stdout, "skipping") {
		t.Fatalf("changed scenario: exit %d, skipped something\n%s", r.code, r.stdout)
	}
	if got := srv.Stats().Requests - sent; got != 4*4 {
		t.Errorf("changed scenario sent %d requests, want 16 (2 points × 2 repeats × 4)", got)
	}
}

// What a run measures decides whether --resume may reuse it: a changed
// request-body extra or dataset seed measures again; a changed gate does
// not, it only judges the same numbers again.
func TestRunResumeIdentity(t *testing.T) {
	t.Parallel()
	dir, file := writeScenario(t, `
def main(ctx):
    target = endpoint(url = "sim://?ttft=1ms&itl=1ms", model = "m", extra = {"temperature": float(ctx.vars.get("temp", "0"))})
    ds = synthetic(input_tokens = fixed(8), output_tokens = fixed(4), seed = int(ctx.vars.get("seed", "0")))
    return experiment(name = "e", endpoint = target, dataset = ds, traffic = concurrency(1), requests = 4,
                      gates = [ctx.vars.get("gate", "error_rate < 1%")])
`)
	if r := runCLI(t, dir, "run", file, "--no-plots"); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	for _, c := range []struct {
		define string
		skips  bool
	}{
		{"gate=error_rate < 2%", true},
		{"temp=0.7", false},
		{"seed=1", false},
	} {
		r := runCLI(t, dir, "run", file, "--no-plots", "--resume", "-D", c.define)
		if r.code != 0 || strings.Contains(r.stdout, "found in checkpoint") != c.skips {
			t.Errorf("-D %s: exit %d, skipped %v, want %v\n%s", c.define, r.code, !c.skips, c.skips, r.stdout)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "out", "checkpoint.json")); strings.Contains(string(b), "temperature") {
			t.Errorf("checkpoint.json holds the request extras:\n%s", b)
		}
	}
}

// A run interrupted under an older llmbench resumes under this one: the
// checkpoint in testdata/resume was written by llmbench 5a03d66 (before
// the plan was one type) running testdata/resume/s.star, and every run it
// holds is found again, nothing measured twice.
func TestRunResumesACheckpointOfAnOlderLlmbench(t *testing.T) {
	t.Parallel()
	scenario, err := os.ReadFile(filepath.Join("testdata", "resume", "s.star"))
	if err != nil {
		t.Fatal(err)
	}
	dir, file := writeScenario(t, string(scenario))
	cp, err := os.ReadFile(filepath.Join("testdata", "resume", "checkpoint-5a03d66.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFileIn(t, filepath.Join(dir, "out"), "checkpoint.json", string(cp))
	r := runCLI(t, dir, "run", file, "--no-plots", "--resume")
	if r.code != 0 || strings.Count(r.stdout, "found in checkpoint - skipping") != 2 {
		t.Fatalf("exit %d, want both points found in the older checkpoint\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
