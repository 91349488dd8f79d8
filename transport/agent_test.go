package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

func TestAgentBodies(t *testing.T) {
	checkBodies(t, []bodyCase{
		{"responses stream", BodySpec{API: Responses, Model: "m", Stream: true}, Prompt{Text: `a "b"`, MaxTokens: 8, MinTokens: 8},
			`{"input":[{"role":"user","content":"a \"b\""}],"model":"m","stream":true,"max_output_tokens":8}`},
		{"responses no limit", BodySpec{API: Responses, Model: "m"}, Prompt{Text: "x"},
			`{"input":[{"role":"user","content":"x"}],"model":"m"}`},
		{"messages stream", BodySpec{API: Messages, Model: "claude", Stream: true}, Prompt{Text: "x", MaxTokens: 5},
			`{"messages":[{"role":"user","content":"x"}],"model":"claude","stream":true,"max_tokens":5}`},
		{"messages default max_tokens", BodySpec{API: Messages, Model: "claude"}, Prompt{Text: "x"},
			`{"messages":[{"role":"user","content":"x"}],"model":"claude","max_tokens":4096}`},
		{"messages extra system and override", BodySpec{API: Messages, Model: "claude", Stream: true, Extra: []Field{
			{"system", json.RawMessage(`"Be brief."`)}, {"max_tokens", json.RawMessage("7")}}}, Prompt{Text: "x", MaxTokens: 5},
			`{"messages":[{"role":"user","content":"x"}],"model":"claude","stream":true,"system":"Be brief.","max_tokens":7}`},
	})
}

func TestAgentPaths(t *testing.T) {
	for _, tc := range []struct {
		api       API
		base, url string
	}{
		{Responses, "http://h:1", "http://h:1/v1/responses"},
		{Responses, "https://api.openai.com/v1", "https://api.openai.com/v1/responses"},
		{Messages, "http://h:1/", "http://h:1/v1/messages"},
		{Messages, "https://api.anthropic.com/v1/", "https://api.anthropic.com/v1/messages"},
	} {
		got, err := targetURL(Config{URL: tc.base, API: tc.api})
		if err != nil || got != tc.url {
			t.Errorf("%s at %s: %s, %v; want %s", tc.api, tc.base, got, err, tc.url)
		}
	}
	if _, err := ParseAPI("messages"); err != nil {
		t.Error(err)
	}
	if _, err := ParseAPI("anthropic"); err == nil {
		t.Error("anthropic accepted as an API")
	}
}

// Members come in any order: a Responses delta whose type follows it, and
// a Messages delta whose type follows its text, still decode.
func TestAgentDecoderOrder(t *testing.T) {
	cases := []struct {
		api       API
		in, text  string
		reasoning bool
	}{
		{Responses, `{"delta":"a","type":"response.output_text.delta"}`, "a", false},
		{Responses, `{"delta":"r","type":"response.reasoning_summary_text.delta"}`, "r", true},
		{Responses, `{"type":"response.output_text.done","text":"whole"}`, "", false},
		{Responses, `{"type":"response.content_part.added","part":{"type":"output_text","text":"x"}}`, "", false},
		{Messages, `{"delta":{"text":"a","type":"text_delta"},"type":"content_block_delta"}`, "a", false},
		{Messages, `{"type":"content_block_delta","delta":{"type":"thinking_delta","thinking":"t\u00e9"}}`, "té", true},
		{Messages, `{"type":"content_block_start","content_block":{"type":"text","text":"x"}}`, "", false},
	}
	for _, tc := range cases {
		d := decoder{api: tc.api}
		p, err := d.decode([]byte(tc.in))
		if err != nil || string(p.text) != tc.text || p.reasoning != tc.reasoning {
			t.Errorf("%s %s: text %q reasoning %v err %v; want %q %v", tc.api, tc.in, p.text, p.reasoning, err, tc.text, tc.reasoning)
		}
	}
}

// An error status's body gives the record its message in either layout,
// and a Messages request carries anthropic-version unless the user sets
// another.
func TestAgentErrorBodiesAndHeaders(t *testing.T) {
	cases := []struct {
		api     API
		headers []Header
		body    string
		msg     string
		version string
	}{
		{Responses, nil, `{"error":{"message":"Invalid 'input': empty.","type":"invalid_request_error","param":"input","code":null}}`, "Invalid 'input': empty.", ""},
		{Messages, nil, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}`, "Number of requests has exceeded your rate limit", AnthropicVersion},
		{Messages, []Header{{"anthropic-version", "2024-01-01"}, {"x-api-key", "k"}}, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded", "2024-01-01"},
	}
	for _, tc := range cases {
		srv := newScripted(t, http.StatusTooManyRequests, func(http.ResponseWriter) []step { return []step{{0, tc.body}} })
		c, _ := newTestClient(t, Config{URL: srv.srv.URL, API: tc.api, Stream: true, Headers: tc.headers})
		var rec metrics.Record
		c.Send(context.Background(), []byte(`{}`), &rec)
		if rec.Err == nil || rec.Err.Class != metrics.ErrHTTP || rec.Err.Status != 429 || rec.Err.Message != tc.msg {
			t.Errorf("%s: failure %+v, want http 429 %q", tc.api, rec.Err, tc.msg)
		}
		if got := srv.headers[0].Get("anthropic-version"); got != tc.version {
			t.Errorf("%s: anthropic-version %q, want %q", tc.api, got, tc.version)
		}
	}
}

// The Responses and Messages scanners must agree with encoding/json on
// what is valid JSON, whatever members they pick out.
func FuzzAgentDecoder(f *testing.F) {
	f.Add(`{"type":"response.output_text.delta","delta":"a\u00e9"}`)
	f.Add(`{"type":"response.completed","response":{"usage":{"input_tokens":3,"output_tokens":1}}}`)
	f.Add(`{"output":[{"type":"message","content":[{"type":"output_text","text":"x"}]}]}`)
	f.Add(`{"type":"content_block_delta","delta":{"type":"text_delta","text":"t"}}`)
	f.Add(`{"content":[{"type":"tool_use","input":{"a":[1]}}],"stop_reason":"end_turn"}`)
	f.Add(`{"token":{"text":"a","special":false},"generated_text":null,"details":{"generated_tokens":1}}`)
	f.Add(`[{"generated_text":"x"},1]`)
	f.Add(`{"text_output":"x","error":"e"}`)
	f.Fuzz(func(t *testing.T, in string) {
		for _, api := range []API{Responses, Messages, TGI, KServe} {
			d := decoder{api: api}
			_, err := d.decode([]byte(in))
			if valid := json.Valid([]byte(in)); valid != (err == nil) {
				t.Fatalf("%s %q: json.Valid=%v but scanner err=%v", api, in, valid, err)
			}
		}
	})
}

// bodyCase is a request body rendered from a spec and a prompt.
type bodyCase struct {
	name string
	spec BodySpec
	p    Prompt
	want string
}

// checkBodies renders each case's body and wants it byte for byte, and
// valid JSON.
func checkBodies(t *testing.T, cases []bodyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.spec.Body(tc.p)
			if string(got) != tc.want {
				t.Errorf("body\n got %s\nwant %s", got, tc.want)
			}
			if !json.Valid(got) {
				t.Errorf("not JSON: %s", got)
			}
		})
	}
}
