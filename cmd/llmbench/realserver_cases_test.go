package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// TestRealServer is the real-server suite (see realserver_test.go). Its
// subtests share one server and run one at a time, since they measure
// latency on a CPU they would otherwise compete for.
func TestRealServer(t *testing.T) {
	rs := startRealServer(t)
	t.Run("profile", rs.testProfile)
	t.Run("token_counts", rs.testTokenCounts)
	t.Run("server_accounting", rs.testServerAccounting)
	t.Run("scenario_sweep", rs.testScenarioSweep)
	t.Run("agent_apis", rs.testAgentAPIs)
	t.Run("conversations", rs.testConversations)
	t.Run("embeddings", rs.testEmbeddings)
	t.Run("model_404", rs.testModel404)
	t.Run("context_overflow", rs.testContextOverflow)
	t.Run("idle_keepalive", rs.testIdleKeepAlive)
	t.Run("interrupt", rs.testInterrupt)
}

// profile with chat and completions, streaming and not: every artifact is
// written, counts add up, no request failed.
func (rs *realServer) testProfile(t *testing.T) {
	rs.profileAPIs(t, 6, "chat", "completions")
}

// profileAPIs profiles n requests per API, streaming and not, and checks
// the artifacts and records of each run.
func (rs *realServer) profileAPIs(t *testing.T, n int, apis ...string) {
	const isl, osl = 64, 16
	for _, api := range apis {
		for _, stream := range []bool{true, false} {
			name := api + "-nostream"
			if stream {
				name = api + "-stream"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				args := []string{"--endpoint-type", api, "--concurrency", "2", "--request-count", strconv.Itoa(n),
					"--synthetic-input-tokens-mean", strconv.Itoa(isl), "--output-tokens-mean", strconv.Itoa(osl),
					"--tokenizer", rs.tokenizer}
				if stream {
					args = append(args, "--streaming")
				}
				r, run := rs.profile(t, dir, args...)
				if r.code != 0 || run == "" {
					t.Fatalf("exit %d, artifacts %q\n%s%s", r.code, run, r.stdout, r.stderr)
				}
				checkArtifacts(t, run, n, isl)
				recs := checkRecords(t, run, api, stream, n, osl)
				m := genaiPerfJSON(t, run)
				t.Logf("%s profile %s: %d/%d completed, TTFT avg %s, request latency avg %s, chunks/request %.1f",
					validationMark, name, len(recs), n, jsonMS(m, "time_to_first_token"), jsonMS(m, "request_latency"), chunksPerRequest(recs))
			})
		}
	}
}

// checkArtifacts reads GenAI-Perf's files of a profile point.
func checkArtifacts(t *testing.T, run string, n, isl int) {
	t.Helper()
	for _, f := range []string{"inputs.json", "profile_export.json", "profile_export_genai_perf.json", "profile_export_genai_perf.csv", "records.parquet"} {
		if _, err := os.Stat(filepath.Join(run, f)); err != nil {
			t.Errorf("missing artifact: %v", err)
		}
	}
	m := genaiPerfJSON(t, run)
	if got := m["request_count"]["avg"]; got != float64(n) {
		t.Errorf("request_count = %v, want %d", got, n)
	}
	if got := m["error_count"]["avg"]; got != 0.0 {
		t.Errorf("error_count = %v, want 0; errors: %v", got, m["llmbench"]["errors"])
	}
	if got := m["input_sequence_length"]["avg"]; got != float64(isl) {
		t.Errorf("ISL avg = %v, want %d (exact prompts with the Llama 3 tokenizer)", got, isl)
	}
	if got := m["llmbench"]["token_counting"]; got != "tokenizer" {
		t.Errorf("token_counting = %v, want tokenizer", got)
	}
	csv, _ := os.ReadFile(filepath.Join(run, "profile_export_genai_perf.csv"))
	if !strings.Contains(string(csv), "Error Count (count),0.00\r\n") || !strings.HasPrefix(string(csv), "Metric,avg,") {
		t.Errorf("CSV does not have GenAI-Perf's layout or counts an error:\n%s", csv)
	}
}

// checkRecords reads records.parquet back through records.ReadRecords.
func checkRecords(t *testing.T, run, api string, stream bool, n, osl int) []metrics.Record {
	t.Helper()
	recs, meta := readRecords(t, filepath.Join(run, "records.parquet"))
	if len(recs) != n {
		t.Errorf("records.parquet has %d rows, want %d", len(recs), n)
	}
	if meta.API != api || meta.Stream != stream || meta.TokenCounting != "tokenizer" {
		t.Errorf("records metadata: api %q stream %v counting %q", meta.API, meta.Stream, meta.TokenCounting)
	}
	for _, r := range recs {
		switch {
		case r.Err != nil:
			t.Errorf("request %d failed: %+v", r.ID, *r.Err)
		case !r.Usage.Reported || r.Usage.CompletionTokens != osl:
			// The random-weight model never emits EOS: it always runs to max_tokens.
			t.Errorf("request %d: usage %+v, want %d completion tokens", r.ID, r.Usage, osl)
		case stream && len(r.Chunks) < 2:
			t.Errorf("request %d: %d content chunks in a stream of %d tokens", r.ID, len(r.Chunks), osl)
		case !stream && len(r.Chunks) != 1:
			t.Errorf("request %d: %d chunks in a non-streamed response, want 1", r.ID, len(r.Chunks))
		}
	}
	return recs
}

func chunksPerRequest(recs []metrics.Record) float64 {
	var xs []float64
	for _, r := range recs {
		xs = append(xs, float64(len(r.Chunks)))
	}
	return realMean(xs)
}

// jsonMS is a metric's avg from profile_export_genai_perf.json, already in
// ms, or "n/a" when the run did not measure it.
func jsonMS(m map[string]map[string]any, key string) string {
	v, ok := m[key]["avg"].(float64)
	if !ok {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " ms"
}

func jsonAvg(m map[string]map[string]any, key string) float64 {
	v, _ := m[key]["avg"].(float64)
	return v
}

// The same prompts counted three ways: by the Llama 3 tokenizer on the
// output text (GenAI-Perf's way), by the server's usage, by content chunks.
func (rs *realServer) testTokenCounts(t *testing.T) {
	const n, isl, osl = 8, 100, 48
	osls := map[string]float64{}
	for _, mode := range []string{"tokenizer", "usage", "chunks"} {
		dir := t.TempDir()
		r, run := rs.profile(t, dir, "--streaming", "--concurrency", "2", "--request-count", strconv.Itoa(n),
			"--synthetic-input-tokens-mean", strconv.Itoa(isl), "--output-tokens-mean", strconv.Itoa(osl),
			"--tokenizer", rs.tokenizer, "--token-count", mode)
		if r.code != 0 || run == "" {
			t.Fatalf("--token-count %s: exit %d\n%s%s", mode, r.code, r.stdout, r.stderr)
		}
		m := genaiPerfJSON(t, run)
		if got := m["llmbench"]["token_counting"]; got != mode {
			t.Errorf("token_counting = %v, want %s", got, mode)
		}
		osls[mode] = jsonAvg(m, "output_sequence_length")
		t.Logf("%s token_count=%s: OSL avg %.2f (min %v max %v), ISL avg %.2f", validationMark, mode, osls[mode],
			m["output_sequence_length"]["min"], m["output_sequence_length"]["max"], jsonAvg(m, "input_sequence_length"))
		if mode == "tokenizer" {
			logPerRequestCounts(t, run)
		}
	}
	if osls["usage"] != osl {
		t.Errorf("usage OSL avg = %v, want %d (max_tokens; the model never stops early)", osls["usage"], osl)
	}
	if osls["chunks"] > osls["usage"] {
		t.Errorf("more chunks (%v) than generated tokens (%v)", osls["chunks"], osls["usage"])
	}
}

// logPerRequestCounts prints each request's three output counts from one
// records file: tokenizer (osl_tokens), usage, content chunks.
func logPerRequestCounts(t *testing.T, run string) {
	recs, _ := readRecords(t, filepath.Join(run, "records.parquet"))
	var tok, use, chunks, inTok, inUse float64
	for _, r := range recs {
		t.Logf("  request %d: OSL tokenizer %d, usage %d, chunks %d; ISL tokenizer %d, usage %d",
			r.ID, r.OutputTokens, r.Usage.CompletionTokens, len(r.Chunks), r.InputTokens, r.Usage.PromptTokens)
		tok += float64(r.OutputTokens)
		use += float64(r.Usage.CompletionTokens)
		chunks += float64(len(r.Chunks))
		inTok += float64(r.InputTokens)
		inUse += float64(r.Usage.PromptTokens)
		if len(r.Chunks) > r.Usage.CompletionTokens {
			t.Errorf("request %d: %d chunks for %d tokens", r.ID, len(r.Chunks), r.Usage.CompletionTokens)
		}
	}
	k := float64(len(recs))
	t.Logf("%s same %d requests, OSL means: tokenizer %.2f, usage %.2f, chunks %.2f; ISL means: tokenizer %.2f, usage %.2f",
		validationMark, len(recs), tok/k, use/k, chunks/k, inTok/k, inUse/k)
}
