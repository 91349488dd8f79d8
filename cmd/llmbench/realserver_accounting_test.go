package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// accountingISL and accountingOSL are the prompt and output lengths of the
// cross-check; accountingN requests are measured each way.
const accountingISL, accountingOSL, accountingN = 128, 64, 6

// Our TTFT and ITL against Ollama's own accounting. llmbench profiles
// /v1/completions at concurrency 1 (one sequence decoding, nothing queued)
// counting tokens by the server's usage, so its ITL divides by the tokens
// the server generated; then the suite sends prompts of the same length —
// other entries of the same synthetic dataset, so no prompt is in the
// server's prompt cache either time — to the native /api/generate with the
// options /v1/completions sets (Ollama's openai.FromCompleteRequest), and
// reads prompt_eval_duration, eval_duration and eval_count from its last
// line. The native stream is timed client-side too (a third opinion, on the
// very requests the server reports on).
func (rs *realServer) testServerAccounting(t *testing.T) {
	dir := t.TempDir()
	r, run := rs.profile(t, dir, "--endpoint-type", "completions", "--streaming", "--concurrency", "1",
		"--request-count", strconv.Itoa(accountingN), "--warmup-request-count", "1", "--num-dataset-entries", "20",
		"--synthetic-input-tokens-mean", strconv.Itoa(accountingISL), "--output-tokens-mean", strconv.Itoa(accountingOSL),
		"--tokenizer", rs.tokenizer, "--token-count", "usage")
	if r.code != 0 || run == "" {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	m := genaiPerfJSON(t, run)
	ourTTFT, ourITL := jsonAvg(m, "time_to_first_token")*1e6, jsonAvg(m, "inter_token_latency")*1e6
	recs, _ := readRecords(t, run+"/records.parquet")
	var ourPrompt []float64
	for _, rec := range recs {
		ourPrompt = append(ourPrompt, float64(rec.Usage.PromptTokens))
	}
	prompts := readInputs(t, run)
	var native []nativeStats
	for _, p := range prompts[12 : 12+accountingN] {
		native = append(native, rs.nativeGenerate(t, p, accountingOSL))
	}
	srv := summarizeNative(native)
	t.Logf("%s accounting: ours (llmbench /v1/completions, usage counts): TTFT %s, ITL %s, usage prompt_tokens %.1f",
		validationMark, realMS(ourTTFT), realMS(ourITL), realMean(ourPrompt))
	t.Logf("%s accounting: Ollama /api/generate: prompt_eval_duration %s (prompt_eval_count %.1f), eval_duration/eval_count %s, eval_duration/(eval_count-1) %s, eval_count %.1f, load_duration %s",
		validationMark, realMS(srv.promptEval), srv.promptCount, realMS(srv.perToken), realMS(srv.perStep), srv.evalCount, realMS(srv.load))
	t.Logf("%s accounting: native stream timed by the suite: TTFT %s, ITL %s; ours/server ITL %.3f (per token), %.3f (per step)",
		validationMark, realMS(srv.clientTTFT), realMS(srv.clientITL), ourITL/srv.perToken, ourITL/srv.perStep)
	if d := math.Abs(ourITL/srv.perToken - 1); d > 0.10 {
		t.Errorf("our ITL %s is %.1f%% away from the server's eval_duration/eval_count %s (limit 10%%)", realMS(ourITL), 100*d, realMS(srv.perToken))
	}
	if ourTTFT < srv.promptEval {
		t.Errorf("our TTFT %s < the server's prompt_eval_duration %s", realMS(ourTTFT), realMS(srv.promptEval))
	}
	for i, s := range native {
		if float64(s.clientTTFT) < float64(s.PromptEvalDuration) {
			t.Errorf("native request %d: first token after %s, before the server's prompt_eval_duration %s", i, s.clientTTFT, time.Duration(s.PromptEvalDuration))
		}
	}
}

// nativeStats is one /api/generate stream: the server's final accounting
// and the suite's own client-side timing of it.
type nativeStats struct {
	PromptEvalCount    int   `json:"prompt_eval_count"`
	PromptEvalDuration int64 `json:"prompt_eval_duration"`
	EvalCount          int   `json:"eval_count"`
	EvalDuration       int64 `json:"eval_duration"`
	LoadDuration       int64 `json:"load_duration"`
	TotalDuration      int64 `json:"total_duration"`
	clientTTFT         time.Duration
	clientLast         time.Duration
}

// nativeGenerate streams one /api/generate request with the options
// Ollama's /v1/completions would set for max_tokens = n.
func (rs *realServer) nativeGenerate(t *testing.T, prompt string, n int) nativeStats {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": rs.model, "prompt": prompt, "stream": true,
		"options": map[string]any{"num_predict": n, "temperature": 1.0, "top_p": 1.0, "frequency_penalty": 0, "presence_penalty": 0}})
	start := time.Now()
	resp, err := http.Post(rs.base+"/api/generate", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("/api/generate: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("/api/generate: %s: %s", resp.Status, b)
	}
	var s nativeStats
	dec := json.NewDecoder(resp.Body)
	for {
		var line struct {
			Response string `json:"response"`
			Done     bool   `json:"done"`
			nativeStats
		}
		if err := dec.Decode(&line); err != nil {
			t.Fatalf("/api/generate stream ended without done: %v", err)
		}
		now := time.Since(start)
		if line.Response != "" {
			if s.clientTTFT == 0 {
				s.clientTTFT = now
			}
			s.clientLast = now
		}
		if line.Done {
			line.nativeStats.clientTTFT, line.nativeStats.clientLast = s.clientTTFT, s.clientLast
			return line.nativeStats
		}
	}
}

// nativeSummary holds means over the native requests, in ns.
type nativeSummary struct {
	promptEval, promptCount, perToken, perStep, evalCount, load, clientTTFT, clientITL float64
}

func summarizeNative(ss []nativeStats) nativeSummary {
	var pe, pc, tok, step, ec, load, cttft, citl []float64
	for _, s := range ss {
		pe = append(pe, float64(s.PromptEvalDuration))
		pc = append(pc, float64(s.PromptEvalCount))
		tok = append(tok, float64(s.EvalDuration)/float64(s.EvalCount))
		step = append(step, float64(s.EvalDuration)/float64(s.EvalCount-1))
		ec = append(ec, float64(s.EvalCount))
		load = append(load, float64(s.LoadDuration))
		cttft = append(cttft, float64(s.clientTTFT))
		citl = append(citl, float64(s.clientLast-s.clientTTFT)/float64(s.EvalCount-1))
	}
	return nativeSummary{realMean(pe), realMean(pc), realMean(tok), realMean(step), realMean(ec), realMean(load), realMean(cttft), realMean(citl)}
}
