package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/transport/sim"
)

// An analyze interrupted by SIGINT after two of four points exits 130 with
// those two checkpointed; re-run with --resume it measures only the other
// two (the server sees exactly their requests, the finished folders are
// not rewritten) and ends with the same analyze CSV rows as a sweep that
// was never interrupted. A third run with GenAI-Perf's
// --enable-checkpointing measures nothing and rewrites the same CSV.
func TestAnalyzeResumeSkipsFinishedPoints(t *testing.T) {
	t.Parallel()
	cfg := sim.DefaultConfig()
	// One batch slot: every point takes 8 × ~100 ms whatever its
	// concurrency, so the interrupt lands inside the third point.
	cfg.MaxBatch, cfg.TTFT, cfg.ITL, cfg.Seed = 1, 5*time.Millisecond, 10*time.Millisecond, 1
	srv, err := sim.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	args := []string{"analyze", "-m", "m", "-u", srv.URL(), "--streaming", "--sweep-list", "1,2,4,8",
		"--request-count", "8", "--output-tokens-mean", "10", "--synthetic-input-tokens-mean", "20"}
	dir := t.TempDir()

	interruptAfterPoints(t, dir, args, 2)
	if labels := checkpointLabels(readCheckpoint(t, dir)); !slices.Equal(labels, []string{"concurrency1", "concurrency2"}) {
		t.Fatalf("checkpoint after the interrupt holds %v", labels)
	}
	firstRows := analyzeCSV(t, dir)
	if len(firstRows) != 3 {
		t.Errorf("interrupted sweep's CSV should list its 2 finished points: %v", firstRows)
	}
	finished := []string{point(dir, "concurrency1"), point(dir, "concurrency2")}
	before, sent := mtimes(t, finished), srv.Stats().Requests

	r := runCLI(t, dir, append(args, "--resume")...)
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	if got := srv.Stats().Requests - sent; got != 2*8 {
		t.Errorf("resume sent %d requests, want 16 (the two unfinished points of 8)", got)
	}
	checkResumed(t, r.stdout, !slices.Equal(mtimes(t, finished), before))
	resumed := analyzeCSV(t, dir)
	for _, row := range firstRows[1:] {
		if !slices.ContainsFunc(resumed, func(r []string) bool { return slices.Equal(r, row) }) {
			t.Errorf("finished point's row changed on resume: %v not in %v", row, resumed)
		}
	}

	fresh := t.TempDir()
	if r := runCLI(t, fresh, args...); r.code != 0 {
		t.Fatalf("uninterrupted sweep: exit %d\n%s", r.code, r.stderr)
	}
	if got, want := rowKeys(resumed), rowKeys(analyzeCSV(t, fresh)); !slices.Equal(got, want) || len(got) != 5 {
		t.Errorf("resumed CSV rows %v, uninterrupted %v", got, want)
	}
	checkNothingLeft(t, dir, args, srv)
}

// checkResumed checks a resumed sweep skipped the finished points and
// measured the others.
func checkResumed(t *testing.T, stdout string, rewritten bool) {
	t.Helper()
	for _, s := range []string{"m_run_config_0:concurrency1 found in checkpoint - skipping profiling...",
		"m_run_config_1:concurrency2 found in checkpoint - skipping profiling...", "== concurrency4 ==", "== concurrency8 =="} {
		if !strings.Contains(stdout, s) {
			t.Errorf("resume output lacks %q", s)
		}
	}
	if strings.Contains(stdout, "== concurrency1 ==") || rewritten {
		t.Error("resume measured a finished point again")
	}
}

// checkNothingLeft re-runs a complete sweep with --enable-checkpointing:
// no traffic, every point skipped, the same CSV byte for byte.
func checkNothingLeft(t *testing.T, dir string, args []string, srv *sim.Server) {
	t.Helper()
	csvBefore, _ := os.ReadFile(filepath.Join(dir, "artifacts", analyzeCSVName))
	sent := srv.Stats().Requests
	if r := runCLI(t, dir, append(args, "--enable-checkpointing")...); r.code != 0 || strings.Count(r.stdout, "found in checkpoint") != 4 {
		t.Fatalf("--enable-checkpointing re-run: exit %d\n%s", r.code, r.stdout)
	}
	csvAfter, _ := os.ReadFile(filepath.Join(dir, "artifacts", analyzeCSVName))
	if srv.Stats().Requests != sent || !bytes.Equal(csvBefore, csvAfter) {
		t.Errorf("a complete checkpoint must give the same CSV with no traffic:\n%s\n%s", csvBefore, csvAfter)
	}
}

// interruptAfterPoints starts analyze and sends SIGINT once the checkpoint
// holds n points, expecting exit 130.
func interruptAfterPoints(t *testing.T, dir string, args []string, n int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(checkpointLabels(tryCheckpoint(dir))) < n {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("checkpoint never reached %d points\n%s", n, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("interrupted analyze: %v, want exit 130\n%s", err, out.String())
	}
}

func tryCheckpoint(dir string) *runtime.Checkpoint {
	cp, _, err := runtime.LoadCheckpoint(filepath.Join(dir, "checkpoint", "checkpoint.json"))
	if err != nil {
		return nil
	}
	return cp
}

func readCheckpoint(t *testing.T, dir string) *runtime.Checkpoint {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "checkpoint", "checkpoint.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cp runtime.Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		t.Fatal(err)
	}
	return &cp
}

func checkpointLabels(cp *runtime.Checkpoint) []string {
	if cp == nil {
		return nil
	}
	var labels []string
	for _, p := range cp.Points {
		labels = append(labels, p.Label)
	}
	return labels
}

func point(dir, label string) string {
	return filepath.Join(dir, "artifacts", "m-openai-chat-"+label)
}

// mtimes are the modification times of every file of the point folders.
func mtimes(t *testing.T, dirs []string) []time.Time {
	t.Helper()
	var times []time.Time
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			info, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			times = append(times, info.ModTime())
		}
	}
	return times
}

// rowKeys are a CSV's config names and loads, sorted: what must agree
// between runs whose measured values differ.
func rowKeys(rows [][]string) []string {
	var keys []string
	for _, r := range rows {
		keys = append(keys, r[0]+"@"+r[1])
	}
	slices.Sort(keys)
	return keys
}
