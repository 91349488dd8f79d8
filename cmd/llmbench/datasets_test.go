package main

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"

	"github.com/llmbench/llmbench/runtime/tokenizer"
)

var llama3, _ = filepath.Abs("../../runtime/tokenizer/testdata/llama3.json.gz")

func TestTokenizeCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "t.txt")
	if err := os.WriteFile(file, []byte("Hello, world!"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, dir, "tokenize", "--tokenizer", llama3, file); r.code != 0 || r.stdout != "4\n" {
		t.Errorf("count: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, dir, "tokenize", "--tokenizer", llama3, "--ids", file); r.stdout != "9906 11 1917 0\n" {
		t.Errorf("ids: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	r := runCLIEnv(t, dir, []string{"HF_HUB_OFFLINE=1", "HF_HOME=" + dir}, "tokenize", "--tokenizer", "no-such/model", file)
	if r.code != 2 || !strings.Contains(r.stderr, `tokenizer "no-such/model"`) {
		t.Errorf("missing tokenizer: exit %d %q", r.code, r.stderr)
	}
}

// With a real tokenizer, synthetic prompts are exactly the requested
// length and ISL is reported as that length.
func TestProfileTokenExactPrompts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "m", "-u", "sim://?itl=1ms&ttft=2ms", "--streaming", "--concurrency", "4",
		"--request-count", "12", "--tokenizer", llama3, "--synthetic-input-tokens-mean", "333",
		"--synthetic-input-tokens-stddev", "0", "--output-tokens-mean", "8")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	run := filepath.Join(dir, "artifacts", "m-openai-chat-concurrency4")
	m := genaiPerfJSON(t, run)
	if isl := m["input_sequence_length"]; isl["min"] != 333.0 || isl["max"] != 333.0 {
		t.Errorf("ISL = %v, want exactly 333", isl)
	}
	tok, err := tokenizer.Load(llama3)
	if err != nil {
		t.Fatal(err)
	}
	var inputs struct {
		Data []struct {
			Payload []struct {
				Messages []struct{ Content string }
			}
		}
	}
	b, _ := os.ReadFile(filepath.Join(run, "inputs.json"))
	if err := json.Unmarshal(b, &inputs); err != nil || len(inputs.Data) != 100 {
		t.Fatalf("inputs.json: %v, %d entries", err, len(inputs.Data))
	}
	for i, d := range inputs.Data {
		if n := tok.Count(d.Payload[0].Messages[0].Content); n != 333 {
			t.Errorf("prompt %d is %d tokens, want 333", i, n)
		}
	}
	if !strings.Contains(r.stdout, "Token counting: tokenizer") {
		t.Errorf("counting mode not named:\n%s", r.stdout)
	}
}

// A Mooncake trace replayed with --fixed-schedule sends every entry at its
// timestamp, with its lengths, and entries sharing hash ids share a prefix.
func TestProfileFixedScheduleReplay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.jsonl")
	lines := []string{
		`{"timestamp": 0, "input_length": 600, "output_length": 4, "hash_ids": [1, 2]}`,
		`{"timestamp": 150, "input_length": 700, "output_length": 6, "hash_ids": [1, 3]}`,
		`{"timestamp": 400, "input_length": 100, "output_length": 2, "hash_ids": [4]}`,
		`{"timestamp": 410, "input_length": 1024, "output_length": 3, "hash_ids": [1, 2]}`,
	}
	if err := os.WriteFile(trace, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantAt := []time.Duration{0, 150 * time.Millisecond, 400 * time.Millisecond, 410 * time.Millisecond}
	reqs := replayTrace(t, dir, trace)
	// The plan is exact: each entry is scheduled at its timestamp.
	recs, _ := readRecords(t, filepath.Join(dir, "artifacts", "m-openai-chat-fixed_schedule", "records.parquet"))
	slices.SortFunc(recs, func(a, b metrics.Record) int { return cmp.Compare(a.ID, b.ID) })
	for i, rec := range recs {
		if got := time.Duration(rec.Scheduled - recs[0].Scheduled); got != wantAt[i] {
			t.Errorf("entry %d scheduled at %v, want %v", i, got, wantAt[i])
		}
	}
	// That each is sent at its planned instant is the engine's to show,
	// exactly, on a fake clock (TestReplaySendsAtTimestamps): measured
	// here it could only be judged within a bound a loaded machine breaks.
	tok, _ := tokenizer.Load(llama3)
	wantLen := []int{600, 700, 100, 1024}
	wantMax := []int{4, 6, 2, 3}
	var prompts []string
	for i, req := range reqs {
		var body struct {
			Messages  []struct{ Content string }
			MaxTokens int `json:"max_tokens"`
		}
		if err := json.Unmarshal([]byte(req.RequestInputs.Payload), &body); err != nil {
			t.Fatal(err)
		}
		prompt := body.Messages[0].Content
		prompts = append(prompts, prompt)
		if n := tok.Count(prompt); n != wantLen[i] || body.MaxTokens != wantMax[i] {
			t.Errorf("entry %d: %d tokens, max_tokens %d; want %d and %d", i, n, body.MaxTokens, wantLen[i], wantMax[i])
		}
	}
	// Block 1 (512 tokens, well over 512 bytes) opens entries 0, 1 and 3.
	if !sharePrefix(prompts[0], prompts[1], 512) || !sharePrefix(prompts[0], prompts[3], 512) {
		t.Errorf("entries sharing hash id 1 do not share the first block's text")
	}
	if sharePrefix(prompts[0], prompts[2], 64) {
		t.Errorf("entry with hash id 4 shares a prefix with hash id 1's block")
	}
}

type replayedRequest struct {
	Timestamp     int64
	RequestInputs struct{ Payload string } `json:"request_inputs"`
}

// replayTrace runs profile --fixed-schedule on trace and returns the
// requests of its profile_export.json.
func replayTrace(t *testing.T, dir, trace string) []replayedRequest {
	t.Helper()
	r := runCLI(t, dir, "profile", "-m", "m", "-u", "sim://?itl=1ms&ttft=2ms", "--streaming",
		"--input-file", "payload:"+trace, "--fixed-schedule", "True", "--tokenizer", llama3)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var export struct {
		Experiments []struct{ Requests []replayedRequest }
	}
	b, _ := os.ReadFile(filepath.Join(dir, "artifacts", "m-openai-chat-fixed_schedule", "profile_export.json"))
	if err := json.Unmarshal(b, &export); err != nil {
		t.Fatal(err)
	}
	reqs := export.Experiments[0].Requests
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	return reqs
}

// sharePrefix reports whether a and b share at least n bytes of prefix.
func sharePrefix(a, b string, n int) bool {
	return len(a) >= n && len(b) >= n && a[:n] == b[:n]
}

func TestBadDatasetFilesExitTwoWithLine(t *testing.T) {
	cases := map[string]struct{ content, want string }{
		"malformed json": {"{\"text\": \"a\"}\n{\"text\": \n", "in.jsonl:2:"},
		"missing field":  {"{\"text\": \"a\"}\n{\"prompt\": \"b\"}\n", "in.jsonl:2:"},
		"wrong type":     {"{\"text\": 5}\n", "in.jsonl:1: text:"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "in.jsonl")
			_ = os.WriteFile(file, []byte(tc.content), 0o644)
			r := runCLI(t, dir, "profile", "-m", "m", "-u", "sim://", "--input-file", file)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 naming %q", r.code, r.stderr, tc.want)
			}
		})
	}
}
