package main

import (
	"path/filepath"
	"testing"
)

// llmbench measures the simulator's Ollama-shaped streams (role on every
// delta, an empty last content chunk with finish_reason, zero-filled usage
// on every completions chunk) exactly as its vLLM-shaped ones: the same
// token counts, one content chunk per token, no error.
func TestSimOllamaFlavorCountsLikeVLLM(t *testing.T) {
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
