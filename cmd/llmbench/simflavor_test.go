package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// llmbench measures the simulator's Ollama-shaped streams (role on every
// delta, an empty last content chunk with finish_reason, zero-filled usage
// on every completions chunk) exactly as its vLLM-shaped ones: the same
// token counts, one content chunk per token, no error.
func TestSimOllamaFlavorCountsLikeVLLM(t *testing.T) {
	t.Parallel()
	const n, osl = 4, 6
	for _, api := range []string{"chat", "completions"} {
		for _, flavor := range []string{"vllm", "ollama"} {
			t.Run(api+"-"+flavor, func(t *testing.T) {
				dir := t.TempDir()
				r := runCLI(t, dir, "profile", "-m", "m", "-u", "sim://?ttft=1ms&itl=1ms&flavor="+flavor, "--streaming",
					"--endpoint-type", api, "--concurrency", "2", "--request-count", "4",
					"--synthetic-input-tokens-mean", "10", "--output-tokens-mean", "6", "--token-count", "usage")
				if r.code != 0 {
					t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
				}
				run := filepath.Join(dir, "artifacts", "m-openai-"+api+"-concurrency2")
				recs, _ := readRecords(t, filepath.Join(run, "records.parquet"))
				if len(recs) != n {
					t.Fatalf("%d records, want %d", len(recs), n)
				}
				for _, rec := range recs {
					if rec.Err != nil || rec.OutputTokens != osl || len(rec.Chunks) != osl || !rec.Usage.Reported || rec.Usage.PromptTokens != 10 {
						t.Errorf("request %d: err %v, OSL %d, %d chunks, usage %+v; want %d tokens in %d chunks, usage 10/%d",
							rec.ID, rec.Err, rec.OutputTokens, len(rec.Chunks), rec.Usage, osl, osl, osl)
					}
				}
			})
		}
	}
}

// The simulator set up as the real Ollama behaved (docs/validation.md): a
// model it does not serve is a 404 for every request and exit 3; a prompt
// beyond its context is truncated, which usage shows and the tokenizer-free
// ISL (usage) reports; merged chunks are fewer than tokens.
func TestSimImitatesOllamaEdges(t *testing.T) {
	t.Parallel()
	const url = "sim://?ttft=1ms&itl=1ms&flavor=ollama&strict_model=true&context_tokens=20&merge_rate=0.2"
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "nosuch", "-u", url, "--streaming", "--request-count", "3", "--output-tokens-mean", "4")
	if r.code != 3 || !strings.Contains(r.stderr, "http 404: model 'nosuch' not found") {
		t.Errorf("unknown model: exit %d, stderr %q; want 3 naming the 404", r.code, r.stderr)
	}
	dir = t.TempDir()
	r = runCLI(t, dir, "profile", "-m", "llmbench-sim", "-u", url, "--streaming", "--request-count", "4",
		"--synthetic-input-tokens-mean", "50", "--output-tokens-mean", "30", "--token-count", "usage")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	recs, _ := readRecords(t, filepath.Join(dir, "artifacts", "llmbench-sim-openai-chat-concurrency1", "records.parquet"))
	for _, rec := range recs {
		if rec.Err != nil || rec.Usage.PromptTokens != 20 || rec.Usage.CompletionTokens != 30 || len(rec.Chunks) >= 30 {
			t.Errorf("request %d: err %v, usage %+v, %d chunks; want 20 prompt (truncated) and 30 completion tokens in fewer chunks",
				rec.ID, rec.Err, rec.Usage, len(rec.Chunks))
		}
	}
}
