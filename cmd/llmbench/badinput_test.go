package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Values a flag's type admits but no run can use are exit 2 with the flag
// named, before any traffic — never a panic, a hang or a silent default.
func TestProfileRefusesUnusableValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-u", "ftp://x:1"}, `--url ftp://x:1: scheme "ftp" is not served`},
		{[]string{"-u", ""}, "--url: got an empty address"},
		{[]string{"--request-rate", "NaN"}, "--request-rate: got NaN, want a finite number"},
		{[]string{"--request-rate", "Inf"}, "--request-rate: got +Inf, want a finite number"},
		{[]string{"--request-rate", "1e-9"}, "more than a day"},
		{[]string{"--request-rate", "5", "--request-distribution", "gamma", "--burstiness", "NaN"}, "--burstiness: got NaN"},
		{[]string{"--profile-export-file", ""}, "--profile-export-file: got \"\", want a bare file name"},
		{[]string{"--profile-export-file", "."}, "--profile-export-file: got \".\", want a bare file name"},
		{[]string{"--profile-export-file", "taken"}, "--profile-export-file taken: artifacts/m-openai-chat-concurrency1/taken is a folder"},
		{[]string{"--extra-inputs", ":5"}, "--extra-inputs: got \":5\", want name:value with a name"},
		{[]string{"--request-timeout", "0s"}, "--request-timeout: got 0s, want a positive duration"},
		{[]string{"--stream-idle-timeout=-1s"}, "--stream-idle-timeout: got -1s"},
		{[]string{"--max-response-size", "0"}, `--max-response-size: got "0", want a size > 0`},
		{[]string{"--max-response-size=-1MiB"}, `--max-response-size: got "-1MiB", want a size > 0`},
		{[]string{"--max-sse-line-size", "abc"}, `--max-sse-line-size: got "abc", want a size > 0 in bytes, optionally with a unit`},
		{[]string{"--max-sse-line-size", "99999999999GiB"}, `--max-sse-line-size: got "99999999999GiB"`},
		{[]string{"--num-prefix-prompts=-1"}, "--num-prefix-prompts and --prefix-prompt-length must not be negative"},
		{[]string{"-H", "Bad Name: s3cret"}, "--header: got \"Bad Name: <redacted>\""},
		{[]string{"--concurrency", "1000000000"}, "open files"},
		{[]string{"--concurrency", "0"}, "--concurrency: got 0, want >= 1"},
		{[]string{"--num-dataset-entries", "1000000000"}, "--num-dataset-entries 1000000000: 1000000000 prompts of about 550 tokens need about"},
		{[]string{"--synthetic-input-tokens-mean", "1000000000"}, "more than a quarter of this machine's"},
		{[]string{"--synthetic-input-tokens-mean", "0"}, "want a mean > 0 (every prompt would be empty)"},
		{[]string{"--input-file", writeFile(t, "e.jsonl", "{\"text\": \"hi\"}\n{\"text\": \" \"}\n")}, "e.jsonl:2: text: got \" \", want a prompt with text"},
		{[]string{"--request-rate", "0"}, "--request-rate: got 0, want > 0"},
		{[]string{"--api-key", "Bearer s3cret"}, "--api-key: got a key containing white space"},
		{[]string{"--api-key", "s3cret", "-H", "authorization: x"}, "--api-key and -H Authorization both set"},
	} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "artifacts", "m-openai-chat-concurrency1", "taken"), 0o755); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"profile", "-m", "m", "-u", "sim://", "--request-count", "2"}, c.args...)
		r := runCLI(t, dir, args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "s3cret") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 with %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// Every request of the whole run failing means the run could not be
// carried out (exit 3, naming the most common error); one point failing
// among points that worked is data the gates judge.
func TestEveryRequestFailedIsExitThree(t *testing.T) {
	t.Parallel()
	r := runCLI(t, t.TempDir(), "profile", "-m", "m", "-u", "sim://?error_rate_500=1", "--request-count", "4")
	if r.code != 3 || !strings.Contains(r.stderr, "every request failed; the most common error (4 times): http 500") {
		t.Errorf("profile: exit %d, stderr %q", r.code, r.stderr)
	}
	_, file := writeScenario(t, `
def main(ctx):
    ds = synthetic(input_tokens = fixed(8), output_tokens = fixed(4))
    return [experiment(name = "ok", endpoint = endpoint(url = "sim://", model = "m"), dataset = ds, traffic = concurrency(1), requests = 4),
            experiment(name = "bad", endpoint = endpoint(url = "sim://?error_rate_500=1", model = "m"), dataset = ds,
                       traffic = concurrency(1), requests = 4, gates = ["error_rate < 1%"])]
`)
	if r := runCLI(t, t.TempDir(), "run", file, "--no-plots"); r.code != 1 {
		t.Errorf("run with one failing experiment: exit %d, want 1 (its gate fails)\n%s", r.code, r.stderr)
	}
}
