package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hubWithRevisions lays out a Hugging Face cache holding acme/tiny whose
// main branch is a broken tokenizer.json and whose v2 tag is a real one
// (Llama 3's), so only a load at revision v2 succeeds. It returns the
// environment that points llmbench at it, offline.
func hubWithRevisions(t *testing.T) []string {
	t.Helper()
	good, err := os.ReadFile(llama3)
	if err != nil {
		t.Fatal(err)
	}
	hub := filepath.Join(t.TempDir(), "hub")
	repo := filepath.Join(hub, "models--acme--tiny")
	commit := strings.Repeat("ab", 20)
	for path, data := range map[string][]byte{
		"snapshots/m41n/tokenizer.json":           []byte("{broken"),
		"refs/main":                               []byte("m41n"),
		"snapshots/" + commit + "/tokenizer.json": good,
		"refs/v2": []byte(commit),
	} {
		p := filepath.Join(repo, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"HF_HUB_CACHE=" + hub, "HF_HUB_OFFLINE=1"}
}

// GenAI-Perf's --service-kind openai, --backend and the tokenizer flags
// are accepted: the revision picks the tokenizer snapshot, input_config
// echoes every flag in GenAI-Perf's keys, llmbench's block names the
// tokenizer really loaded, and the flags that change nothing say so.
func TestProfileAcceptsGenAIPerfFlags(t *testing.T) {
	t.Parallel()
	env := hubWithRevisions(t)
	dir := t.TempDir()
	args := []string{"profile", "-m", "acme/tiny", "-u", "sim://?ttft=1ms&itl=1ms", "--service-kind", "openai",
		"--backend", "vllm", "--tokenizer", "acme/tiny", "--tokenizer-trust-remote-code",
		"--request-count", "4", "--synthetic-input-tokens-mean", "8", "--output-tokens-mean", "4"}
	r := runCLIEnv(t, dir, env, append(args, "--tokenizer-revision", "v2")...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, warning := range []string{"--backend only applies to Triton", "--tokenizer-trust-remote-code has no effect"} {
		if !strings.Contains(r.stderr, warning) {
			t.Errorf("no warning %q in\n%s", warning, r.stderr)
		}
	}
	m := genaiPerfJSON(t, filepath.Join(dir, "artifacts", "acme_tiny-openai-chat-concurrency1"))
	ic := m["input_config"]
	ep, tok := ic["endpoint"].(map[string]any), ic["tokenizer"].(map[string]any)
	if ep["backend"] != "vllm" || ep["service_kind"] != "openai" {
		t.Errorf("input_config.endpoint: backend %v, service_kind %v", ep["backend"], ep["service_kind"])
	}
	if tok["name"] != "acme/tiny" || tok["revision"] != "v2" || tok["trust_remote_code"] != true {
		t.Errorf("input_config.tokenizer = %v", tok)
	}
	if own := m["llmbench"]; own["tokenizer"] != "acme/tiny" || own["token_counting"] != "tokenizer" {
		t.Errorf("llmbench block: tokenizer %v, token_counting %v", own["tokenizer"], own["token_counting"])
	}
	// At main (the default revision) the same tokenizer is the broken file.
	if r := runCLIEnv(t, t.TempDir(), env, args...); r.code != 2 || !strings.Contains(r.stderr, `--tokenizer: tokenizer "acme/tiny"`) {
		t.Errorf("at revision main: exit %d, %q; want the broken main snapshot refused", r.code, r.stderr)
	}
}

// Without --tokenizer, input_config keeps GenAI-Perf's default tokenizer
// name (the first model) while llmbench's block says none was loaded and
// how tokens were counted instead.
func TestProfileWithoutTokenizerSaysNone(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "org/m", "-u", "sim://?ttft=1ms&itl=1ms", "--request-count", "2",
		"--synthetic-input-tokens-mean", "5", "--output-tokens-mean", "3")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	m := genaiPerfJSON(t, filepath.Join(dir, "artifacts", "org_m-openai-chat-concurrency1"))
	if tok := m["input_config"]["tokenizer"].(map[string]any); tok["name"] != "org/m" || tok["revision"] != "main" || tok["trust_remote_code"] != false {
		t.Errorf("input_config.tokenizer = %v, want GenAI-Perf's defaults", tok)
	}
	if own := m["llmbench"]; own["tokenizer"] != "none" || own["token_counting"] != "usage" {
		t.Errorf("llmbench block: tokenizer %v, token_counting %v; want none and usage", own["tokenizer"], own["token_counting"])
	}
}

// GenAI-Perf flags llmbench cannot honour exit 2 with one line naming the
// flag, the value and what to use instead.
func TestGenAIPerfFlagErrors(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"profile", "-m", "m", "--service-kind", "triton", "--endpoint-type", "completions"},
			[]string{"--endpoint-type completions: --service-kind triton speaks Triton's KServe v2 gRPC API (endpoint type kserve)", "use --service-kind openai"}},
		{[]string{"profile", "-m", "m", "--service-kind", "triton", "-u", "http://localhost:8000"},
			[]string{`--url: got "http://localhost:8000" for api="triton"`, "want grpc://host:port, grpcs://host:port or host:port"}},
		{[]string{"profile", "-m", "m", "--service-kind", "triton", "--extra-inputs", `{"stop":{"a":1}}`},
			[]string{"--extra-inputs: triton body: input stop: element 0: want a string, a number or true/false"}},
		{[]string{"profile", "-m", "m", "--service-kind", "triton", "--reset-prefix-cache"},
			[]string{"--reset-prefix-cache: the reset is an HTTP POST to the server's root, and --service-kind triton speaks gRPC"}},
		{[]string{"profile", "-m", "m", "--service-kind", "tensorrtllm_engine"},
			[]string{"--service-kind tensorrtllm_engine: driving a TensorRT-LLM engine in-process", "not built yet"}},
		{[]string{"profile", "-m", "m", "--service-kind", "dynamic_grpc"},
			[]string{"--service-kind dynamic_grpc: custom gRPC services", "not built yet"}},
		{[]string{"analyze", "-m", "m", "--service-kind", "grpc"},
			[]string{`--service-kind: got "grpc", want openai`}},
		{[]string{"profile", "-m", "m", "--backend", "onnx"},
			[]string{`--backend: got "onnx", want tensorrtllm or vllm`}},
		{[]string{"profile", "-m", "m", "--tokenizer-revision", ""},
			[]string{"--tokenizer-revision: got an empty string, want a branch, tag or commit id"}},
		{[]string{"profile", "-m", "m", "--concurrency", "2", "--", "--max-threads", "8"},
			[]string{"profile: arguments after -- (--max-threads 8) are for perf_analyzer", "llmbench has no perf_analyzer",
				"--max-threads → nothing (llmbench has no thread cap)"}},
		{[]string{"--log-level", "warn", "analyze", "-m", "m", "--", "--request-distribution", "poisson", "-s", "5"},
			[]string{"analyze: arguments after -- (--request-distribution poisson -s 5)",
				"--request-distribution → --request-distribution poisson|gamma|constant", "-s → --stability-percentage P"}},
		{[]string{"profile", "-m", "m", "--", "--bogus"},
			[]string{"(--bogus) are for perf_analyzer", "--request-distribution, --max-concurrency", "llmbench profile --help"}},
	}
	for _, c := range cases {
		r := runCLI(t, t.TempDir(), c.args...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 2 || len(lines) != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line", c.args, r.code, r.stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%q: stderr %q lacks %q", c.args, r.stderr, w)
			}
		}
	}
}
