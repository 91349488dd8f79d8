package sim

import (
	"fmt"
	"strings"
	"testing"
)

// The Ollama flavor streams what Ollama v0.17.4 streamed to the real-server
// suite (docs/validation.md), byte for byte apart from ids, times and text.
func TestOllamaFlavorStreams(t *testing.T) {
	withUsage := `,"stream_options":{"include_usage":true}`
	chat := `{"model":"m","messages":[{"role":"user","content":"one two three"}],"max_tokens":3,"stream":true%s}`
	comp := `{"model":"m","prompt":"one two three","max_tokens":3,"stream":true%s}`
	const (
		chatTok  = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":T,"model":"test-model","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"W"},"finish_reason":null}]}`
		chatEnd  = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":T,"model":"test-model","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"length"}]}`
		chatUse  = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":T,"model":"test-model","system_fingerprint":"fp_ollama","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6}}`
		zero     = `,"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}`
		compTok  = `{"id":"cmpl-1","object":"text_completion","created":T,"choices":[{"text":"W","index":0,"finish_reason":null}],"model":"test-model","system_fingerprint":"fp_ollama"%s}`
		compEnd  = `{"id":"cmpl-1","object":"text_completion","created":T,"choices":[{"text":"","index":0,"finish_reason":"length"}],"model":"test-model","system_fingerprint":"fp_ollama"%s}`
		compUse  = `{"id":"cmpl-1","object":"text_completion","created":T,"choices":[],"model":"test-model","system_fingerprint":"fp_ollama","usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6}}`
		doneLine = `[DONE]`
	)
	tests := []struct {
		name, path, body string
		want             []string
	}{
		{"chat with usage", "/v1/chat/completions", fmt.Sprintf(chat, withUsage),
			[]string{chatTok, chatTok, chatTok, chatEnd, chatUse, doneLine}},
		{"chat without usage", "/v1/chat/completions", fmt.Sprintf(chat, ""),
			[]string{chatTok, chatTok, chatTok, chatEnd, doneLine}},
		{"completions with usage", "/v1/completions", fmt.Sprintf(comp, withUsage),
			[]string{fmt.Sprintf(compTok, zero), fmt.Sprintf(compTok, zero), fmt.Sprintf(compTok, zero), fmt.Sprintf(compEnd, zero), compUse, doneLine}},
		{"completions without usage", "/v1/completions", fmt.Sprintf(comp, ""),
			[]string{fmt.Sprintf(compTok, ""), fmt.Sprintf(compTok, ""), fmt.Sprintf(compTok, ""), fmt.Sprintf(compEnd, ""), doneLine}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := startSim(t, func(c *Config) { c.Flavor = FlavorOllama })
			events, err := readEvents(post(t, s.URL()+tc.path, tc.body).Body)
			if err != nil {
				t.Fatal(err)
			}
			if len(events) != len(tc.want) {
				t.Fatalf("got %d events, want %d:\n%s", len(events), len(tc.want), strings.Join(events, "\n"))
			}
			for i, e := range events {
				if got := normalizeEvent(e); got != tc.want[i] {
					t.Errorf("event %d\n got %s\nwant %s", i, got, tc.want[i])
				}
			}
		})
	}
}

// normalizeEvent replaces the created time with T and a token's word with
// W, so events compare as shapes.
func normalizeEvent(e string) string {
	if i := strings.Index(e, `"created":`); i >= 0 {
		j := i + len(`"created":`)
		k := j
		for k < len(e) && e[k] >= '0' && e[k] <= '9' {
			k++
		}
		e = e[:j] + "T" + e[k:]
	}
	for _, key := range []string{`"content":"`, `"text":"`} {
		if i := strings.Index(e, key); i >= 0 {
			j := i + len(key)
			if k := strings.IndexByte(e[j:], '"'); k > 0 {
				e = e[:j] + "W" + e[j+k:]
			}
		}
	}
	return e
}

func TestFlavorValidation(t *testing.T) {
	c := DefaultConfig()
	c.Flavor = "tgi"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `flavor must be "vllm" or "ollama", got "tgi"`) {
		t.Errorf("Validate = %v", err)
	}
	for _, f := range []Flavor{"", FlavorVLLM, FlavorOllama} {
		c.Flavor = f
		if err := c.Validate(); err != nil {
			t.Errorf("flavor %q: %v", f, err)
		}
	}
}
