package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptrace"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// Embeddings: whether Ollama serves /v1/embeddings for this model is
// asked first; llmbench must then record exactly that, success or error.
func (rs *realServer) testEmbeddings(t *testing.T) {
	status, body := rs.postJSON(t, "/v1/embeddings", map[string]any{"model": rs.model, "input": "hello world"})
	var emb struct {
		Data []struct {
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &emb)
	dim := 0
	if len(emb.Data) > 0 {
		dim = len(emb.Data[0].Embedding)
	}
	t.Logf("%s embeddings: POST /v1/embeddings -> %d, %d vector(s) of %d floats: %.120s", validationMark, status, len(emb.Data), dim, body)
	dir := t.TempDir()
	r, run := rs.profile(t, dir, "--endpoint-type", "embeddings", "--concurrency", "1", "--request-count", "4",
		"--synthetic-input-tokens-mean", "32", "--tokenizer", rs.tokenizer)
	if run == "" {
		t.Fatalf("no artifacts; exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	recs, _ := readRecords(t, filepath.Join(run, "records.parquet"))
	failed := countFailed(recs)
	t.Logf("%s embeddings profile: exit %d, %d requests, %d failed %s", validationMark, r.code, len(recs), failed, firstErr(recs))
	switch {
	case status == http.StatusOK && (r.code != 0 || failed != 0):
		t.Errorf("the server serves embeddings but llmbench exited %d with %d failures\n%s", r.code, failed, r.stderr)
	case status != http.StatusOK && (r.code != 3 || failed != len(recs)):
		t.Errorf("the server refuses embeddings (%d) but llmbench exited %d with %d/%d failed", status, r.code, failed, len(recs))
	}
}

func countFailed(recs []metrics.Record) int {
	n := 0
	for _, r := range recs {
		if r.Err != nil {
			n++
		}
	}
	return n
}

func firstErr(recs []metrics.Record) string {
	for _, r := range recs {
		if r.Err != nil {
			return "(" + string(r.Err.Class) + " " + strconv.Itoa(r.Err.Status) + ": " + r.Err.Message + ")"
		}
	}
	return ""
}

// A model the server does not have: every request is an http 404 error,
// and a run whose every request failed exits 3 naming the error.
func (rs *realServer) testModel404(t *testing.T) {
	dir := t.TempDir()
	r, run := rs.profile(t, dir, "-m", "nosuchmodel", "--streaming", "--concurrency", "1", "--request-count", "3",
		"--synthetic-input-tokens-mean", "16", "--output-tokens-mean", "4")
	t.Logf("%s 404 model: exit %d, stderr %q", validationMark, r.code, strings.TrimSpace(r.stderr))
	if r.code != 3 {
		t.Errorf("exit %d, want 3 (every request failed)\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr+r.stdout, "404") {
		t.Errorf("the output does not name the 404:\n%s%s", r.stdout, r.stderr)
	}
	if run == "" {
		t.Fatalf("no artifacts written")
	}
	recs, _ := readRecords(t, filepath.Join(run, "records.parquet"))
	for _, rec := range recs {
		if rec.Err == nil || rec.Err.Class != metrics.ErrHTTP || rec.Err.Status != http.StatusNotFound {
			t.Errorf("request %d: %+v, want an http 404 error", rec.ID, rec.Err)
		}
	}
	t.Logf("%s 404 model: %d records, %s", validationMark, len(recs), firstErr(recs))
}

// A prompt longer than the context. Ollama's default context on CPU is
// 4096 tokens; the suite derives a model with num_ctx 256 (same weights,
// through /api/create) so the overflow costs a 400-token prefill rather
// than a 4,000-token one, and reports what the server did with it.
func (rs *realServer) testContextOverflow(t *testing.T) {
	const small = "tiny-ctx256"
	status, body := rs.postJSON(t, "/api/create", map[string]any{"model": small, "from": rs.model,
		"parameters": map[string]any{"num_ctx": 256}, "stream": false})
	if status != http.StatusOK {
		t.Fatalf("/api/create %s: %d %s", small, status, body)
	}
	for _, api := range []string{"chat", "completions"} {
		dir := t.TempDir()
		r, run := rs.profile(t, dir, "-m", small, "--endpoint-type", api, "--streaming", "--concurrency", "1",
			"--request-count", "2", "--synthetic-input-tokens-mean", "400", "--output-tokens-mean", "16", "--tokenizer", rs.tokenizer)
		if run == "" {
			t.Fatalf("%s: no artifacts; exit %d\n%s%s", api, r.code, r.stdout, r.stderr)
		}
		recs, _ := readRecords(t, filepath.Join(run, "records.parquet"))
		for _, rec := range recs {
			t.Logf("%s context overflow %s: exit %d, ISL tokenizer %d, usage prompt_tokens %d completion_tokens %d, chunks %d, error %s",
				validationMark, api, r.code, rec.InputTokens, rec.Usage.PromptTokens, rec.Usage.CompletionTokens, len(rec.Chunks), firstErr([]metrics.Record{rec}))
		}
		// Ollama v0.17.4 keeps the last num_ctx tokens and answers normally;
		// we record the ISL we sent, the usage says what the server kept.
		if r.code != 0 || countFailed(recs) != 0 {
			t.Errorf("%s: exit %d, %d failed; Ollama used to truncate and answer\n%s", api, r.code, countFailed(recs), r.stderr)
		}
		for _, rec := range recs {
			if rec.Usage.PromptTokens > 256 || rec.InputTokens != 400 {
				t.Errorf("%s: usage prompt_tokens %d (want <= num_ctx 256), ISL %d (want the 400 sent)", api, rec.Usage.PromptTokens, rec.InputTokens)
			}
		}
	}
}

// Idle connections. Ollama's http.Server sets no IdleTimeout (and no
// ReadTimeout), so Go never closes an idle keep-alive connection; the suite
// checks that on the wire (a connection reused after 12 s idle), then runs
// an open loop with 8 s gaps — longer than uvicorn's 5 s that trips other
// clients — expecting no error and no retry. Ollama's other keep-alive is
// the model's (start.sh sets OLLAMA_KEEP_ALIVE=30m): a request after the
// model was unloaded pays the load in its TTFT, and is no error either.
func (rs *realServer) testIdleKeepAlive(t *testing.T) {
	reused, idle := rs.reusedAfter(t, 12*time.Second)
	t.Logf("%s keep-alive: connection reused after %s idle: %v (was idle %s)", validationMark, 12*time.Second, reused, idle)
	if !reused {
		t.Errorf("the server closed an idle keep-alive connection within 12 s")
	}
	dir := t.TempDir()
	r, run := rs.profile(t, dir, "--streaming", "--request-rate", "0.125", "--request-distribution", "constant",
		"--request-count", "3", "--synthetic-input-tokens-mean", "16", "--output-tokens-mean", "8")
	if r.code != 0 || run == "" {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	m := genaiPerfJSON(t, run)
	t.Logf("%s keep-alive: 3 requests 8 s apart: errors %v, retried %v", validationMark, jsonAvg(m, "error_count"), m["llmbench"]["retried"])
	if jsonAvg(m, "error_count") != 0 || m["llmbench"]["retried"] != nil {
		t.Errorf("after idle gaps: errors %v, retried %v; a server that keeps idle connections open needs neither",
			m["llmbench"]["errors"], m["llmbench"]["retried"])
	}

	status, body := rs.postJSON(t, "/api/generate", map[string]any{"model": rs.model, "keep_alive": 0})
	if status != http.StatusOK {
		t.Fatalf("unloading the model: %d %s", status, body)
	}
	dir = t.TempDir()
	r, run = rs.profile(t, dir, "--streaming", "--concurrency", "1", "--request-count", "2",
		"--synthetic-input-tokens-mean", "16", "--output-tokens-mean", "8")
	if r.code != 0 || run == "" {
		t.Fatalf("after unload: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	recs, _ := readRecords(t, filepath.Join(run, "records.parquet"))
	for _, rec := range recs {
		ttft := "n/a"
		if len(rec.Chunks) > 0 {
			ttft = realMS(float64(rec.Chunks[0] - rec.Sent))
		}
		t.Logf("%s keep-alive: after unloading the model, request %d TTFT %s, error %v", validationMark, rec.ID, ttft, rec.Err)
		if rec.Err != nil {
			t.Errorf("request %d after a model unload failed: %+v", rec.ID, *rec.Err)
		}
	}
}

// reusedAfter sends two requests on one client d apart and says whether
// the second went out on the first one's connection.
func (rs *realServer) reusedAfter(t *testing.T, d time.Duration) (bool, time.Duration) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{IdleConnTimeout: 10 * d}}
	get := func() httptrace.GotConnInfo {
		var info httptrace.GotConnInfo
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { info = i }})
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, rs.base+"/api/version", nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET /api/version: %v", err)
		}
		_, _ = io.Copy(io.Discard, resp.Body) // read to the end, or the client closes the connection
		resp.Body.Close()
		return info
	}
	get()
	time.Sleep(d)
	info := get()
	return info.Reused, info.IdleTime
}
