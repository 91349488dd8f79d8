package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sweepStar is the scenario of the real-server sweep.
const sweepStar = "testdata/realserver/sweep.star"

// scenarioEnv points sweep.star at the suite's server and tokenizer.
func (rs *realServer) scenarioEnv() []string {
	return []string{"LLM_URL=" + rs.base + "/v1", "LLM_MODEL=" + rs.model, "TOKENIZER=" + rs.tokenizer}
}

// A concurrency sweep 1, 2, 4 with gates a healthy server meets exits 0;
// the same scenario with a gate no server can meet exits 1.
func (rs *realServer) testScenarioSweep(t *testing.T) {
	star, _ := filepath.Abs(sweepStar)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	start := time.Now()
	r := runCLIEnv(t, dir, rs.scenarioEnv(), "run", star, "--out", out)
	t.Logf("%s scenario sweep 1,2,4: exit %d in %s\n%s", validationMark, r.code, time.Since(start).Round(time.Second), r.stdout)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
	}
	sum := readSummary(t, out)
	if len(sum.Experiments) != 1 || len(sum.Experiments[0].Points) != 3 {
		t.Fatalf("summary.json: want one experiment with 3 points, got %+v", sum)
	}
	for _, p := range sum.Experiments[0].Points {
		if p.Requests.Failed != 0 || p.Requests.Completed != 12 {
			t.Errorf("point %s: %+v", p.Label, p.Requests)
		}
		recs, _ := readRecords(t, filepath.Join(out, "ollama-sweep", p.Label, "records.parquet"))
		if len(recs) != 12 {
			t.Errorf("point %s: %d records, want 12", p.Label, len(recs))
		}
		t.Logf("%s sweep %s: TTFT p50 %.1f ms p99 %.1f ms, ITL p50 %.1f ms, output %.1f tok/s, %d/%d gates passed",
			validationMark, p.Label, p.Metrics.TTFT.P50, p.Metrics.TTFT.P99, p.Metrics.ITL.P50, p.Metrics.OutputTokenThroughput, passed(p.Gates), len(p.Gates))
	}
	if g := readGates(t, out); !g.Passed || g.Failed != 0 || g.Partial {
		t.Errorf("gates.json: %+v", g)
	}

	out2 := filepath.Join(dir, "out-fail")
	r = runCLIEnv(t, dir, rs.scenarioEnv(), "run", star, "--out", out2, "-D", "levels=1", "-D", "requests=3",
		"-D", "fail_gate=ttft.p50 < 1ms")
	t.Logf("%s scenario with an impossible gate: exit %d\n%s", validationMark, r.code, grepGateLines(r.stdout))
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (a gate failed)\n%s%s", r.code, r.stdout, r.stderr)
	}
	if g := readGates(t, out2); g.Passed || g.Failed != 1 {
		t.Errorf("gates.json: want exactly one failed verdict, got %+v", g)
	}
}

type summaryDoc struct {
	Partial     bool `json:"partial"`
	Experiments []struct {
		Points []struct {
			Label    string `json:"label"`
			Partial  bool   `json:"partial"`
			Requests struct {
				Completed int `json:"completed"`
				Failed    int `json:"failed"`
			} `json:"requests"`
			Metrics struct {
				TTFT                  struct{ P50, P99 float64 } `json:"ttft"`
				ITL                   struct{ P50, P99 float64 } `json:"itl"`
				OutputTokenThroughput float64                    `json:"output_token_throughput"`
			} `json:"metrics"`
			Gates []struct {
				Passed bool `json:"passed"`
			} `json:"gates"`
		} `json:"points"`
	} `json:"experiments"`
}

func passed(gs []struct {
	Passed bool `json:"passed"`
}) int {
	n := 0
	for _, g := range gs {
		if g.Passed {
			n++
		}
	}
	return n
}

func readSummary(t *testing.T, out string) summaryDoc {
	t.Helper()
	var s summaryDoc
	readJSONFile(t, filepath.Join(out, "summary.json"), &s)
	return s
}

type gatesDoc struct {
	Passed, Partial bool
	Check           string
	Total, Failed   int
}

func readGates(t *testing.T, out string) gatesDoc {
	t.Helper()
	var g gatesDoc
	readJSONFile(t, filepath.Join(out, "gates.json"), &g)
	return g
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// grepGateLines keeps the console's ✓/✗ lines.
func grepGateLines(stdout string) string {
	var keep []string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.Contains(l, "✓") || strings.Contains(l, "✗") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// Ctrl-C in the middle of a profile and of a scenario: exit 130, what was
// measured is written and marked partial.
func (rs *realServer) testInterrupt(t *testing.T) {
	t.Run("profile", func(t *testing.T) {
		dir := t.TempDir()
		args := []string{"profile", "-m", rs.model, "-u", rs.base, "--artifact-dir", filepath.Join(dir, "artifacts"),
			"--streaming", "--concurrency", "2", "--request-count", "1000", "--output-tokens-mean", "32",
			"--synthetic-input-tokens-mean", "32", "--tokenizer", rs.tokenizer}
		code, stdout := interruptAfter(t, dir, nil, 8*time.Second, args...)
		run := realOnlyDir(filepath.Join(dir, "artifacts"))
		if code != 130 || run == "" {
			t.Fatalf("exit %d (want 130), artifacts %q\n%s", code, run, stdout)
		}
		m := genaiPerfJSON(t, run)
		n := jsonAvg(m, "request_count")
		recs, _ := readRecords(t, filepath.Join(run, "records.parquet"))
		t.Logf("%s interrupt profile: exit %d, request_count %v, partial %v, %d records", validationMark, code, n, m["llmbench"]["partial"], len(recs))
		if m["llmbench"]["partial"] != true || n < 1 || n >= 1000 {
			t.Errorf("partial = %v, request_count = %v", m["llmbench"]["partial"], n)
		}
	})
	t.Run("scenario", func(t *testing.T) {
		star, _ := filepath.Abs(sweepStar)
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		code, stdout := interruptAfter(t, dir, rs.scenarioEnv(), 10*time.Second, "run", star, "--out", out, "-D", "requests=1000")
		if code != 130 {
			t.Fatalf("exit %d, want 130\n%s", code, stdout)
		}
		s, g := readSummary(t, out), readGates(t, out)
		t.Logf("%s interrupt scenario: exit %d, summary partial %v, gates.json partial %v", validationMark, code, s.Partial, g.Partial)
		if !s.Partial || !g.Partial || len(s.Experiments) != 1 || len(s.Experiments[0].Points) == 0 || !s.Experiments[0].Points[0].Partial {
			t.Errorf("not marked partial: summary %+v, gates %+v", s, g)
		}
	})
}

// interruptAfter starts llmbench, sends SIGINT after d and returns the exit
// code and stdout.
func interruptAfter(t *testing.T, dir string, env []string, d time.Duration, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(d)
	sent := time.Now()
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	t.Logf("exited %s after SIGINT", time.Since(sent).Round(time.Millisecond))
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}
