package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// modelServer is an OpenAI chat server on 127.0.0.1 that answers every
// request and records the "model" each body named, in arrival order.
type modelServer struct {
	*httptest.Server
	mu     sync.Mutex
	models []string
}

func startModelServer(t *testing.T) *modelServer {
	t.Helper()
	s := &modelServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Model string }
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.models = append(s.models, body.Model)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"x","object":"chat.completion","model":` + jsonQuote(body.Model) +
			`,"choices":[{"index":0,"message":{"role":"assistant","content":"one two three"},"finish_reason":"stop"}],` +
			`"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}`))
	}))
	t.Cleanup(s.Close)
	return s
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// seen returns the models the server was asked for, and forgets them.
func (s *modelServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.models
	s.models = nil
	return out
}

// addr is the server as GenAI-Perf's -u takes it: host:port.
func (s *modelServer) addr() string { return strings.TrimPrefix(s.URL, "http://") }

// inputModels returns the model of each inputs.json payload, in order.
func inputModels(t *testing.T, runDir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(runDir, "inputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Data []struct {
			Payload []struct{ Model string }
		}
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(in.Data))
	for i, d := range in.Data {
		out[i] = d.Payload[0].Model
	}
	return out
}

// endpointConfig reads input_config.endpoint and input_config.model_names.
func endpointConfig(t *testing.T, runDir string) (map[string]any, []any) {
	t.Helper()
	ic := genaiPerfJSON(t, runDir)["input_config"]
	return ic["endpoint"].(map[string]any), ic["model_names"].([]any)
}

// -m a b c sends request i to models[i % 3] (round robin, GenAI-Perf's
// default), shows each payload's model in inputs.json, and names the run
// folder after the first model plus "_multi" as GenAI-Perf does.
func TestProfileRoundRobinModels(t *testing.T) {
	srv := startModelServer(t)
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "a", "b", "c", "-u", srv.addr(), "--concurrency", "1",
		"--request-count", "12", "--num-dataset-entries", "6", "--synthetic-input-tokens-mean", "5")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	want := []string{"a", "b", "c", "a", "b", "c", "a", "b", "c", "a", "b", "c"}
	if got := srv.seen(); !slices.Equal(got, want) {
		t.Errorf("server saw models %v, want %v", got, want)
	}
	run := filepath.Join(dir, "artifacts", "a_multi-openai-chat-concurrency1")
	if got := inputModels(t, run); !slices.Equal(got, want[:6]) {
		t.Errorf("inputs.json models %v, want %v", got, want[:6])
	}
	ep, names := endpointConfig(t, run)
	if ep["model_selection_strategy"] != "round_robin" || len(names) != 3 || names[2] != "c" {
		t.Errorf("input_config: model_selection_strategy %v, model_names %v", ep["model_selection_strategy"], names)
	}
}

// --model-selection-strategy random draws each payload's model from
// --random-seed: the same seed sends the same models, and what was sent
// is what inputs.json shows.
func TestProfileRandomModelsFollowSeed(t *testing.T) {
	srv := startModelServer(t)
	args := func(seed string) []string {
		return []string{"profile", "-m", "a", "b", "-u", srv.addr(), "--model-selection-strategy", "random",
			"--random-seed", seed, "--request-count", "20", "--num-dataset-entries", "20", "--synthetic-input-tokens-mean", "5"}
	}
	var runs [][]string
	for range 2 {
		dir := t.TempDir()
		if r := runCLI(t, dir, args("5")...); r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		sent := srv.seen()
		run := filepath.Join(dir, "artifacts", "a_multi-openai-chat-concurrency1")
		if got := inputModels(t, run); !slices.Equal(got, sent) {
			t.Errorf("inputs.json models %v, server saw %v", got, sent)
		}
		if ep, _ := endpointConfig(t, run); ep["model_selection_strategy"] != "random" {
			t.Errorf("input_config model_selection_strategy = %v", ep["model_selection_strategy"])
		}
		runs = append(runs, sent)
	}
	if !slices.Equal(runs[0], runs[1]) {
		t.Errorf("seed 5 twice sent %v then %v", runs[0], runs[1])
	}
	if !slices.Contains(runs[0], "a") || !slices.Contains(runs[0], "b") {
		t.Errorf("20 random draws over [a b] used one model: %v", runs[0])
	}
	if r := runCLI(t, t.TempDir(), args("6")...); r.code != 0 || slices.Equal(srv.seen(), runs[0]) {
		t.Errorf("seed 6: exit %d, and the same models as seed 5", r.code)
	}
}

func TestProfileModelFlagErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-m", ""}, `--model: got an empty name at position 1 of [""]`},
		{[]string{"-m", "a", " "}, `--model: got an empty name at position 2 of ["a" " "]`},
		{[]string{"-m", "a", "b", "--model-selection-strategy", "fancy"}, `--model-selection-strategy must be one of "round_robin","random" but got "fancy"`},
	}
	for _, c := range cases {
		r := runCLI(t, t.TempDir(), append([]string{"profile", "-u", "sim://"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line with %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// endpoint(model=[...]) in a scenario spreads the requests over the
// models as -m a b does, and the point's artifacts say so.
func TestScenarioModelList(t *testing.T) {
	srv := startModelServer(t)
	dir, file := writeScenario(t, `
target = endpoint(url = env("LLM_URL"), model = ["a", "b"])
def main(ctx):
    return experiment("e", target, synthetic(input_tokens = fixed(5), output_tokens = fixed(3)),
                      concurrency(1), requests = 12)
`)
	r := runCLIEnv(t, dir, []string{"LLM_URL=" + srv.URL}, "run", file, "--no-plots")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	sent := srv.seen()
	point := filepath.Join(dir, "out", "e", "concurrency1")
	inputs := inputModels(t, point)
	if len(sent) != 12 || len(inputs) == 0 {
		t.Fatalf("server saw %v, inputs.json has %v", sent, inputs)
	}
	for i, m := range sent {
		if want := []string{"a", "b"}[(i%len(inputs))%2]; m != want || inputs[i%len(inputs)] != want {
			t.Errorf("request %d named %q, inputs.json entry %q; want %q", i, m, inputs[i%len(inputs)], want)
		}
	}
	ep, names := endpointConfig(t, point)
	if ep["model_selection_strategy"] != "round_robin" || len(names) != 2 || names[1] != "b" {
		t.Errorf("input_config: model_selection_strategy %v, model_names %v", ep["model_selection_strategy"], names)
	}
	if page, _ := os.ReadFile(filepath.Join(dir, "out", "report.html")); !strings.Contains(string(page), "a, b (round_robin)") {
		t.Errorf("report.html does not list both models")
	}
}

// A malformed model list is a load error naming the builtin and the
// parameter, exit 2, for check and run alike.
func TestScenarioModelListErrors(t *testing.T) {
	cases := []struct{ model, want string }{
		{`[]`, "endpoint: for parameter model: got an empty list, want one or more model names"},
		{`["a", 1]`, "endpoint: for parameter model: at index 1: got int, want string"},
		{`["a", "b"], model_selection = "fair"`, `endpoint: for parameter model_selection: got "fair", want round_robin or random`},
	}
	for _, c := range cases {
		dir, file := writeScenario(t, `
target = endpoint(url = "sim://", model = `+c.model+`)
def main(ctx):
    return experiment("e", target, synthetic(input_tokens = fixed(5)), concurrency(1), requests = 2)
`)
		for _, cmd := range []string{"check", "run"} {
			r := runCLI(t, dir, cmd, file)
			if r.code != 2 || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "s.star:2:") {
				t.Errorf("%s with model = %s: exit %d, stderr %q; want exit 2, the position and %q", cmd, c.model, r.code, r.stderr, c.want)
			}
		}
	}
}
