package genaiperf

import (
	"path/filepath"
	"testing"
)

func TestArtifactDirName(t *testing.T) {
	for _, c := range []struct {
		model, typ string
		st         Stimulus
		want       string
	}{
		{"model_name", "chat", Stimulus{Concurrency: 1}, "model_name-openai-chat-concurrency1"},
		{"Qwen/Qwen3-14B", "chat", Stimulus{}, "Qwen_Qwen3-14B-openai-chat-concurrency1"},
		{"meta-llama/Llama-3.1-8B-Instruct", "chat", Stimulus{Concurrency: 16}, "meta-llama_Llama-3.1-8B-Instruct-openai-chat-concurrency16"},
		{"gpt2", "completions", Stimulus{RequestRate: 10}, "gpt2-openai-completions-request_rate10.0"},
		{"gpt2", "embeddings", Stimulus{RequestRate: 2.5}, "gpt2-openai-embeddings-request_rate2.5"},
		{"a/b/c", "chat", Stimulus{RequestRate: 1e-5}, "a_b_c-openai-chat-request_rate1e-05"},
		// A concurrency wins over a rate, as perf_analyzer decides the mode.
		{"m", "chat", Stimulus{Concurrency: 4, RequestRate: 10}, "m-openai-chat-concurrency4"},
	} {
		if got := ArtifactDirName(c.model, c.typ, c.st); got != c.want {
			t.Errorf("ArtifactDirName(%q, %q, %+v) = %q, want %q", c.model, c.typ, c.st, got, c.want)
		}
	}
}

func TestRunDir(t *testing.T) {
	r := DefaultRun("org/model", "other")
	r.Stimulus = Stimulus{Concurrency: 8}
	if got, want := r.Dir(), filepath.Join("artifacts", "org_model_multi-openai-chat-concurrency8"); got != want {
		t.Errorf("Dir() = %q, want %q", got, want)
	}
}

func TestExportFileNames(t *testing.T) {
	for in, want := range map[string]string{
		"profile_export.json": "profile_export_genai_perf",
		"my_run.json":         "my_run_genai_perf",
		"":                    "profile_export_genai_perf",
		"noext":               "noext_genai_perf",
		".json":               ".json_genai_perf",
	} {
		j, c := ExportFileNames(in)
		if j != want+".json" || c != want+".csv" {
			t.Errorf("ExportFileNames(%q) = %q, %q", in, j, c)
		}
	}
}
