package sim

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// StrictModel answers an unknown model 404 in the flavor's shape; without
// it any model is served.
func TestStrictModel(t *testing.T) {
	body := `{"model":"nosuch","messages":[{"role":"user","content":"hi"}],"max_tokens":2,"stream":true}`
	tests := []struct {
		flavor Flavor
		strict bool
		status int
		want   string
	}{
		{FlavorOllama, true, http.StatusNotFound, `{"error":{"message":"model 'nosuch' not found","type":"api_error","param":null,"code":null}}`},
		{FlavorVLLM, true, http.StatusNotFound, `{"error":{"message":"The model ` + "`nosuch`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}}`},
		{FlavorOllama, false, http.StatusOK, ""},
	}
	for _, tc := range tests {
		s := startSim(t, func(c *Config) { c.Flavor, c.StrictModel = tc.flavor, tc.strict })
		resp := post(t, s.URL()+"/v1/chat/completions", body)
		got := strings.TrimSpace(string(readAll(t, resp.Body)))
		if resp.StatusCode != tc.status || tc.want != "" && got != tc.want {
			t.Errorf("%s strict=%v: %d %s\nwant %d %s", tc.flavor, tc.strict, resp.StatusCode, got, tc.status, tc.want)
		}
		if st := s.Stats(); tc.strict && (st.NotFound != 1 || st.Completed != 0) {
			t.Errorf("%s: stats %+v", tc.flavor, st)
		}
	}
	s := startSim(t, func(c *Config) { c.StrictModel = true })
	if resp := post(t, s.URL()+"/v1/chat/completions", strings.Replace(body, "nosuch", "test-model", 1)); resp.StatusCode != http.StatusOK {
		t.Errorf("the served model got %d", resp.StatusCode)
	}
}

// ContextTokens: Ollama truncates the prompt and says so in usage; vLLM
// refuses prompt + max_tokens beyond the window.
func TestContextTokens(t *testing.T) {
	prompt := `{"model":"m","prompt":"a b c d e f g h i j","max_tokens":3}` // 10 prompt tokens
	s := startSim(t, func(c *Config) { c.Flavor, c.ContextTokens = FlavorOllama, 4 })
	var got completion
	if err := json.Unmarshal(readAll(t, post(t, s.URL()+"/v1/completions", prompt).Body), &got); err != nil {
		t.Fatal(err)
	}
	if got.Usage != (usage{PromptTokens: 4, CompletionTokens: 3, TotalTokens: 7}) {
		t.Errorf("ollama usage = %+v, want the prompt cut to 4 tokens", got.Usage)
	}
	for _, tc := range []struct {
		limit, status int
	}{{12, http.StatusBadRequest}, {13, http.StatusOK}} {
		s := startSim(t, func(c *Config) { c.ContextTokens = tc.limit })
		resp := post(t, s.URL()+"/v1/completions", prompt)
		b := readAll(t, resp.Body)
		if resp.StatusCode != tc.status {
			t.Errorf("vllm, window %d: %d %s, want %d", tc.limit, resp.StatusCode, b, tc.status)
		}
		if tc.status == http.StatusBadRequest && !strings.Contains(string(b), "maximum context length is 12 tokens. However, you requested 13 tokens (10 in the messages, 3 in the completion)") {
			t.Errorf("vllm refusal: %s", b)
		}
	}
}

// MergeRate sends some tokens two or more to a chunk: fewer chunks than
// tokens, the same text and usage.
func TestMergeRate(t *testing.T) {
	s := startSim(t, func(c *Config) { c.Flavor, c.MergeRate = FlavorOllama, 0.3 })
	resp := post(t, s.URL()+"/v1/chat/completions",
		`{"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":40,"stream":true,"stream_options":{"include_usage":true}}`)
	events, err := readEvents(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	content := 0
	for _, e := range events[:len(events)-1] {
		c := decodeChunk(t, e)
		if len(c.Choices) == 1 && c.Choices[0].Delta["content"] != "" {
			content++
			text.WriteString(c.Choices[0].Delta["content"])
		}
		if c.Usage != nil && c.Usage.CompletionTokens != 40 {
			t.Errorf("usage %+v, want 40 completion tokens", *c.Usage)
		}
	}
	if words := len(strings.Fields(text.String())); words != 40 || content >= 40 || content < 20 {
		t.Errorf("%d words in %d content chunks; want 40 words in fewer chunks", words, content)
	}
}
