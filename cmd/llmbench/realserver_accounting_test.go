package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// accountingISL and accountingOSL are the prompt and output lengths of the
// cross-check; accountingN requests are measured.
const accountingISL, accountingOSL, accountingN = 128, 64, 8

// Our TTFT and ITL against Ollama's own accounting, on the very same
// requests. Ollama reports prompt_eval_duration, eval_duration and
// eval_count only on its native /api/generate, and the CPU is shared, so
// decode speed drifts between consecutive requests (13.7 to 52 ms per
// token was seen): comparing llmbench's /v1/completions requests with
// other, native ones would compare noise. So llmbench profiles a small
// proxy (accountingProxy) that serves /v1/completions by streaming
// Ollama's /api/generate with the options Ollama's own /v1/completions
// would set (openai.FromCompleteRequest), one SSE chunk per native line,
// flushed as it arrives, and keeps each request's final accounting.
// Concurrency 1, so one sequence decodes and the records pair with the
// proxy's list in order; token counts come from the usage the proxy
// relays (eval_count), so our ITL divides by the tokens the server
// generated.
func (rs *realServer) testServerAccounting(t *testing.T) {
	rs.nativeGenerate(t, "warm up", 4) // the model may have been unloaded
	proxy := &accountingProxy{rs: rs}
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	dir := t.TempDir()
	r, run := rs.profile(t, dir, "-u", srv.URL, "--endpoint-type", "completions", "--streaming", "--concurrency", "1",
		"--request-count", strconv.Itoa(accountingN), "--synthetic-input-tokens-mean", strconv.Itoa(accountingISL),
		"--output-tokens-mean", strconv.Itoa(accountingOSL), "--tokenizer", rs.tokenizer, "--token-count", "usage")
	if r.code != 0 || run == "" {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	recs, _ := readRecords(t, filepath.Join(run, "records.parquet"))
	slices.SortFunc(recs, func(a, b metrics.Record) int { return int(a.ID - b.ID) })
	native := proxy.done()
	if len(recs) != accountingN || len(native) != accountingN {
		t.Fatalf("%d records, %d native requests; want %d each", len(recs), len(native), accountingN)
	}
	var ttft, itl, pe, rest, perTok, perStep, ratio []float64
	for i, rec := range recs {
		s := native[i]
		d := metrics.Derive(&rec)
		if len(rec.Chunks) < 2 || !d.HasITL {
			t.Fatalf("request %d: no TTFT or ITL (%d chunks)", i, len(rec.Chunks))
		}
		ttft, itl = append(ttft, float64(d.TTFT)), append(itl, float64(d.ITL))
		pe = append(pe, float64(s.PromptEvalDuration))
		perTok = append(perTok, float64(s.EvalDuration)/float64(s.EvalCount))
		perStep = append(perStep, float64(s.EvalDuration)/float64(s.EvalCount-1))
		ratio = append(ratio, itl[i]/perTok[i])
		rest = append(rest, ttft[i]-pe[i]-float64(s.LoadDuration))
		t.Logf("%s accounting request %d: ours TTFT %s ITL %s | server load %s + prompt_eval %s (%d tokens) leave %s of our TTFT; eval %s / %d = %s per token | ours/server ITL %.3f",
			validationMark, i, realMS(ttft[i]), realMS(itl[i]), realMS(float64(s.LoadDuration)), realMS(pe[i]), s.PromptEvalCount, realMS(rest[i]),
			realMS(float64(s.EvalDuration)), s.EvalCount, realMS(perTok[i]), ratio[i])
		if ttft[i] < pe[i] {
			t.Errorf("request %d: our TTFT %s < the server's prompt_eval_duration %s", i, realMS(ttft[i]), realMS(pe[i]))
		}
	}
	t.Logf("%s accounting medians of %d requests: ours TTFT %s, ITL %s | server prompt_eval_duration %s (TTFT - load - prompt_eval %s), eval_duration/eval_count %s, eval_duration/(eval_count-1) %s | ours/server ITL median %.3f, min %.3f, max %.3f",
		validationMark, accountingN, realMS(realMedian(ttft)), realMS(realMedian(itl)), realMS(realMedian(pe)), realMS(realMedian(rest)), realMS(realMedian(perTok)),
		realMS(realMedian(perStep)), realMedian(ratio), slices.Min(ratio), slices.Max(ratio))
	if d := math.Abs(realMedian(ratio) - 1); d > 0.10 {
		t.Errorf("our ITL is %.1f%% away from the server's eval_duration/eval_count (median over requests; limit 10%%)", 100*d)
	}
}

// accountingProxy serves /v1/completions (streaming) from Ollama's native
// /api/generate and keeps every request's final accounting line.
type accountingProxy struct {
	rs    *realServer
	mu    sync.Mutex
	stats []nativeStats
}

func (p *accountingProxy) done() []nativeStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.stats)
}

func (p *accountingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model     string `json:"model"`
		Prompt    string `json:"prompt"`
		MaxTokens int    `json:"max_tokens"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/completions" {
		http.Error(w, "want a /v1/completions body", http.StatusBadRequest)
		return
	}
	resp, err := http.Post(p.rs.base+"/api/generate", "application/json", bytes.NewReader(nativeBody(req.Model, req.Prompt, req.MaxTokens)))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", "text/event-stream")
	flush := http.NewResponseController(w).Flush
	dec := json.NewDecoder(resp.Body)
	for {
		var line nativeLine
		if dec.Decode(&line) != nil {
			return // the client sees a truncated stream: an error, as it should
		}
		if line.Response != "" {
			text, _ := json.Marshal(line.Response)
			fmt.Fprintf(w, "data: {\"object\":\"text_completion\",\"choices\":[{\"text\":%s,\"index\":0,\"finish_reason\":null}]}\n\n", text)
			_ = flush()
		}
		if line.Done {
			s := line.nativeStats
			fmt.Fprintf(w, "data: {\"object\":\"text_completion\",\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\ndata: [DONE]\n\n",
				s.PromptEvalCount, s.EvalCount, s.PromptEvalCount+s.EvalCount)
			_ = flush()
			p.mu.Lock()
			p.stats = append(p.stats, s)
			p.mu.Unlock()
			return
		}
	}
}

// nativeBody is the /api/generate request Ollama's /v1/completions makes
// of a completions request with this prompt and max_tokens.
func nativeBody(model, prompt string, maxTokens int) []byte {
	b, _ := json.Marshal(map[string]any{"model": model, "prompt": prompt, "stream": true,
		"options": map[string]any{"num_predict": maxTokens, "temperature": 1.0, "top_p": 1.0, "frequency_penalty": 0, "presence_penalty": 0}})
	return b
}

// nativeLine is one line of an /api/generate stream.
type nativeLine struct {
	Response string `json:"response"`
	Done     bool   `json:"done"`
	nativeStats
}

// nativeStats is the server's own accounting of one /api/generate request,
// from its last line (durations in ns).
type nativeStats struct {
	PromptEvalCount    int   `json:"prompt_eval_count"`
	PromptEvalDuration int64 `json:"prompt_eval_duration"`
	EvalCount          int   `json:"eval_count"`
	EvalDuration       int64 `json:"eval_duration"`
	LoadDuration       int64 `json:"load_duration"`
	TotalDuration      int64 `json:"total_duration"`
}

// nativeGenerate streams one /api/generate request to its end.
func (rs *realServer) nativeGenerate(t *testing.T, prompt string, n int) nativeStats {
	t.Helper()
	resp, err := http.Post(rs.base+"/api/generate", "application/json", bytes.NewReader(nativeBody(rs.model, prompt, n)))
	if err != nil {
		t.Fatalf("/api/generate: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("/api/generate: %s: %s", resp.Status, b)
	}
	dec := json.NewDecoder(resp.Body)
	for {
		var line nativeLine
		if err := dec.Decode(&line); err != nil {
			t.Fatalf("/api/generate stream ended without done: %v", err)
		}
		if line.Done {
			return line.nativeStats
		}
	}
}

// realMedian is the median of xs (0 for none).
func realMedian(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}
