package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestStreamEventSequence(t *testing.T) {
	chatBody := `{"model":"any","messages":[{"role":"system","content":"be brief"},` +
		`{"role":"user","content":"hello there  world"}],"max_tokens":5,"stream":true%s}`
	withUsage := `,"stream_options":{"include_usage":true}`
	tests := []struct {
		name      string
		reasoning int
		path      string
		body      string
		prompt    int
		usage     bool
	}{
		{"chat with usage", 0, "/v1/chat/completions", fmt.Sprintf(chatBody, withUsage), 5, true},
		{"chat without usage", 0, "/v1/chat/completions", fmt.Sprintf(chatBody, ""), 5, false},
		{"chat reasoning", 3, "/v1/chat/completions", fmt.Sprintf(chatBody, withUsage), 5, true},
		{"completions prompt list", 0, "/v1/completions",
			`{"model":"m","prompt":["one two","three"],"max_tokens":5,"stream":true` + withUsage + `}`, 3, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := startSim(t, func(c *Config) {
				c.Reasoning, c.ReasoningTokens = tc.reasoning > 0, max(tc.reasoning, 1)
			})
			resp := post(t, s.URL()+tc.path, tc.body)
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
				t.Fatalf("Content-Type = %q", ct)
			}
			events, err := readEvents(resp.Body)
			if err != nil {
				t.Fatalf("read stream: %v", err)
			}
			chat := tc.path == "/v1/chat/completions"
			checkStream(t, events, chat, 5, tc.reasoning, tc.prompt, tc.usage)
		})
	}
}

// checkStream walks a vLLM-shaped stream: [role], n tokens, finish,
// [usage], [DONE].
func checkStream(t *testing.T, events []string, chat bool, n, reasoning, prompt int, withUsage bool) {
	t.Helper()
	want := n + 2 + btoi(chat) + btoi(withUsage)
	if len(events) != want {
		t.Fatalf("got %d events, want %d: %q", len(events), want, events)
	}
	if chat {
		checkRoleChunk(t, events[0])
		events = events[1:]
	}
	var text strings.Builder
	for i, e := range events[:n] {
		text.WriteString(tokenOf(t, e, chat, i < reasoning))
	}
	if got := len(strings.Fields(text.String())); got != n {
		t.Errorf("output %q has %d words, want %d", text.String(), got, n)
	}
	fin := decodeChunk(t, events[n])
	if c := fin.Choices[0]; c.FinishReason == nil || *c.FinishReason != "length" || len(c.Delta) != 0 {
		t.Errorf("finish chunk = %s", events[n])
	}
	if withUsage {
		u := decodeChunk(t, events[n+1])
		if len(u.Choices) != 0 || u.Usage == nil || *u.Usage != (usage{PromptTokens: prompt, CompletionTokens: n, TotalTokens: prompt + n}) {
			t.Errorf("usage chunk = %s", events[n+1])
		}
	}
	if last := events[len(events)-1]; last != "[DONE]" {
		t.Errorf("last event = %q, want [DONE]", last)
	}
}

func checkRoleChunk(t *testing.T, event string) {
	t.Helper()
	c := decodeChunk(t, event)
	want := fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":%d,"model":"test-model",`+
		`"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`, c.Created)
	if event != want {
		t.Errorf("role chunk\n got %s\nwant %s", event, want)
	}
}

// tokenOf checks a token chunk carries exactly one word in the right field.
func tokenOf(t *testing.T, event string, chat, reasoning bool) string {
	t.Helper()
	c := decodeChunk(t, event)
	ch := c.Choices[0]
	var text string
	switch {
	case !chat:
		text = *ch.Text
		if c.Object != "text_completion" {
			t.Errorf("object = %q", c.Object)
		}
	case reasoning:
		text = ch.Delta["reasoning_content"]
	default:
		text = ch.Delta["content"]
	}
	if chat && len(ch.Delta) != 1 || ch.FinishReason != nil || len(strings.Fields(text)) != 1 || text[0] != ' ' {
		t.Errorf("token chunk %s (reasoning=%v)", event, reasoning)
	}
	return text
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestNonStreaming(t *testing.T) {
	tests := []struct {
		name          string
		path, body    string
		object        string
		prompt, words int
	}{
		{"chat", "/v1/chat/completions",
			`{"messages":[{"role":"user","content":[{"type":"text","text":"a b c"}]}],"max_tokens":7}`, "chat.completion", 3, 7},
		{"chat default output", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}]}`, "chat.completion", 1, 4},
		{"chat max_completion_tokens", "/v1/chat/completions",
			`{"messages":[{"role":"user","content":"x"}],"max_completion_tokens":2,"ignore_eos":true,"min_tokens":2}`, "chat.completion", 1, 2},
		{"completions token ids", "/v1/completions", `{"prompt":[1,2,3,4],"max_tokens":6}`, "text_completion", 4, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := startSim(t, nil)
			resp := post(t, s.URL()+tc.path, tc.body)
			var got completion
			if err := json.Unmarshal(readAll(t, resp.Body), &got); err != nil {
				t.Fatalf("status %d: %v", resp.StatusCode, err)
			}
			if got.Object != tc.object || got.Model != "test-model" || got.Choices[0].FinishReason != "length" {
				t.Errorf("response = %+v", got)
			}
			if got.Usage != (usage{PromptTokens: tc.prompt, CompletionTokens: tc.words, TotalTokens: tc.prompt + tc.words}) {
				t.Errorf("usage = %+v, want prompt %d completion %d", got.Usage, tc.prompt, tc.words)
			}
			if n := len(strings.Fields(outputText(got))); n != tc.words {
				t.Errorf("output has %d words, want %d", n, tc.words)
			}
		})
	}
}

func outputText(c completion) string {
	if c.Choices[0].Text != nil {
		return *c.Choices[0].Text
	}
	return c.Choices[0].Message.ReasoningContent + c.Choices[0].Message.Content
}

func TestNonStreamingReasoning(t *testing.T) {
	s := startSim(t, func(c *Config) { c.Reasoning, c.ReasoningTokens = true, 3 })
	resp := post(t, s.URL()+"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"max_tokens":5}`)
	var got completion
	if err := json.Unmarshal(readAll(t, resp.Body), &got); err != nil {
		t.Fatal(err)
	}
	m := got.Choices[0].Message
	if len(strings.Fields(m.ReasoningContent)) != 3 || len(strings.Fields(m.Content)) != 2 {
		t.Errorf("message = %+v, want 3 reasoning and 2 answer words", m)
	}
}

func TestEmbeddings(t *testing.T) {
	s := startSim(t, nil)
	embed := func(input string) embeddingList {
		t.Helper()
		resp := post(t, s.URL()+"/v1/embeddings", `{"model":"e","input":`+input+`}`)
		var got embeddingList
		if err := json.Unmarshal(readAll(t, resp.Body), &got); err != nil {
			t.Fatalf("status %d: %v", resp.StatusCode, err)
		}
		return got
	}
	one := embed(`"a b"`)
	many := embed(`["a b", "c", [5, 6]]`)
	ids := embed(`[5, 6, 7]`)
	if len(one.Data) != 1 || len(many.Data) != 3 || len(ids.Data) != 1 {
		t.Fatalf("vector counts %d %d %d, want 1 3 1", len(one.Data), len(many.Data), len(ids.Data))
	}
	if one.Usage.PromptTokens != 2 || many.Usage.PromptTokens != 5 || ids.Usage.PromptTokens != 3 {
		t.Errorf("prompt tokens %d %d %d, want 2 5 3", one.Usage.PromptTokens, many.Usage.PromptTokens, ids.Usage.PromptTokens)
	}
	if fmt.Sprint(one.Data[0].Embedding) != fmt.Sprint(many.Data[0].Embedding) {
		t.Error("equal inputs got different vectors")
	}
	if fmt.Sprint(many.Data[0].Embedding) == fmt.Sprint(many.Data[1].Embedding) {
		t.Error("different inputs got equal vectors")
	}
	norm := 0.0
	for _, x := range one.Data[0].Embedding {
		norm += x * x
	}
	if len(one.Data[0].Embedding) != embeddingDim || norm < 0.999 || norm > 1.001 {
		t.Errorf("vector has length %d and squared norm %g", len(one.Data[0].Embedding), norm)
	}
}

func TestErrorResponses(t *testing.T) {
	chat := "/v1/chat/completions"
	tests := []struct {
		name, method, path, body, header string
		status                           int
		message                          string
	}{
		{"unknown path", http.MethodPost, "/v1/nope", `{}`, "", 404, "no route"},
		{"wrong method", http.MethodGet, chat, ``, "", 405, "use POST"},
		{"bad JSON", http.MethodPost, chat, `{"messages":`, "", 400, "invalid JSON body"},
		{"no messages", http.MethodPost, chat, `{"max_tokens":3}`, "", 400, "messages must be"},
		{"zero max_tokens", http.MethodPost, chat, `{"messages":[{"content":"x"}],"max_tokens":0}`, "", 400,
			"max_tokens must be at least 1, got 0"},
		{"null prompt", http.MethodPost, "/v1/completions", `{"prompt":null}`, "", 400, "prompt must be"},
		{"bad prompt item", http.MethodPost, "/v1/completions", `{"prompt":["a",{}]}`, "", 400, "prompt[1]"},
		{"no input", http.MethodPost, "/v1/embeddings", `{}`, "", 400, "input must be"},
		{"bad fault header", http.MethodPost, chat, `{"messages":[{"content":"x"}]}`, "boom", 400, "X-Sim-Fault"},
	}
	s := startSim(t, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, s.URL()+tc.path, strings.NewReader(tc.body))
			if tc.header != "" {
				req.Header.Set(FaultHeader, tc.header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e apiError
			if err := json.Unmarshal(readAll(t, resp.Body), &e); err != nil {
				t.Fatalf("error body is not JSON: %v", err)
			}
			if resp.StatusCode != tc.status || e.Error.Code != tc.status || !strings.Contains(e.Error.Message, tc.message) {
				t.Errorf("got %d %+v, want %d with %q", resp.StatusCode, e.Error, tc.status, tc.message)
			}
		})
	}
}

func TestModelsAndHealth(t *testing.T) {
	s := startSim(t, nil)
	resp, err := http.Get(s.URL() + "/health")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("health: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = http.Get(s.URL() + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.Unmarshal(readAll(t, resp.Body), &list); err != nil || len(list.Data) != 1 || list.Data[0].ID != "test-model" {
		t.Errorf("models = %+v, %v", list, err)
	}
}
