package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/transport/sim"
)

// `profile` and `run` of the same point go through the same executor: the
// same request bodies, the same records (entries, token counts, outcomes)
// and the same saved plan shape; only timings differ between two runs.
// profile keeps GenAI-Perf's one seed, so the scenario asks for the same
// prompts (same_prompts=True) rather than the point's own.
func TestProfileAndRunWriteTheSameRecords(t *testing.T) {
	t.Parallel()
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL, cfg.Seed, cfg.Jitter = 2*time.Millisecond, time.Millisecond, 1, 0
	srv, err := sim.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	prof := runCLI(t, dir, "profile", "-m", "m", "-u", srv.URL(), "--streaming", "--concurrency", "2",
		"--request-count", "12", "--synthetic-input-tokens-mean", "20", "--output-tokens-mean", "5", "--artifact-dir", "a")
	if prof.code != 0 {
		t.Fatalf("profile: exit %d\n%s", prof.code, prof.stderr)
	}
	_, file := writeScenario(t, `
def main(ctx):
    return experiment(name = "e", endpoint = endpoint(url = env("LLM_URL"), model = "m"),
                      dataset = synthetic(input_tokens = normal(20, 0), output_tokens = normal(5, 0)),
                      traffic = concurrency(2), requests = 12, same_prompts = True)
`)
	if r := runCLIEnv(t, dir, []string{"LLM_URL=" + srv.URL()}, "run", file, "--no-plots"); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	profDir := filepath.Join(dir, "a", "m-openai-chat-concurrency2")
	runDir := filepath.Join(dir, "out", "e", "concurrency2")
	pin, _ := os.ReadFile(filepath.Join(profDir, "inputs.json"))
	rin, _ := os.ReadFile(filepath.Join(runDir, "inputs.json"))
	if len(pin) == 0 || !bytes.Equal(pin, rin) {
		t.Errorf("inputs.json differ:\nprofile %.200s\nrun     %.200s", pin, rin)
	}
	precs, pmeta := readRecords(t, filepath.Join(profDir, "records.parquet"))
	rrecs, rmeta := readRecords(t, filepath.Join(runDir, "records.parquet"))
	if len(precs) != 12 || len(rrecs) != 12 {
		t.Fatalf("records: profile %d, run %d, want 12 each", len(precs), len(rrecs))
	}
	byID := func(recs []metrics.Record) map[int64]metrics.Record {
		m := map[int64]metrics.Record{}
		for _, r := range recs {
			m[r.ID] = r
		}
		return m
	}
	p, q := byID(precs), byID(rrecs)
	for id, a := range p {
		b := q[id]
		if a.Entry != b.Entry || a.InputTokens != b.InputTokens || a.OutputTokens != b.OutputTokens ||
			len(a.Chunks) != len(b.Chunks) || (a.Err == nil) != (b.Err == nil) {
			t.Errorf("request %d: profile entry %d isl %d osl %d chunks %d, run entry %d isl %d osl %d chunks %d",
				id, a.Entry, a.InputTokens, a.OutputTokens, len(a.Chunks), b.Entry, b.InputTokens, b.OutputTokens, len(b.Chunks))
		}
	}
	if pmeta.TokenCounting != rmeta.TokenCounting || pmeta.PointRecord == "" || rmeta.PointRecord == "" {
		t.Errorf("metadata: profile %q/%t, run %q/%t", pmeta.TokenCounting, pmeta.PointRecord != "", rmeta.TokenCounting, rmeta.PointRecord != "")
	}
}

func readRecords(t *testing.T, path string) ([]metrics.Record, records.Meta) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	recs, meta, err := records.ReadRecords(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return recs, meta
}
