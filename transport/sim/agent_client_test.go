package sim_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
)

// startAgentSim is a fast sim whose answers open with two reasoning tokens.
func startAgentSim(t *testing.T) *sim.Server {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.PrefillPerToken, cfg.ITL, cfg.ITLPerSeq, cfg.Jitter = 2*time.Millisecond, 0, time.Millisecond, 0, 0
	cfg.Stall, cfg.Model, cfg.Reasoning, cfg.ReasoningTokens = 20*time.Millisecond, "m", true, 2
	s, err := sim.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func sendAgent(t *testing.T, s *sim.Server, api transport.API, stream bool, headers ...transport.Header) metrics.Record {
	t.Helper()
	c, err := transport.NewClient(transport.Config{URL: s.URL(), API: api, Stream: stream, Headers: headers,
		Timeout: 10 * time.Second}, transport.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := transport.BodySpec{API: api, Model: "m", Stream: stream}.Body(transport.Prompt{Text: "one two three", MaxTokens: 5})
	var rec metrics.Record
	c.Send(context.Background(), body, &rec)
	return rec
}

// The sim serves /v1/responses and /v1/messages, streamed and whole, in
// a shape llmbench's own client reads back: 5 tokens (2 of them reasoning,
// leading in a stream), the prompt's 3 words and the 5 tokens in usage.
func TestSimServesResponsesAndMessages(t *testing.T) {
	s := startAgentSim(t)
	for _, api := range []transport.API{transport.Responses, transport.Messages} {
		for _, stream := range []bool{true, false} {
			rec := sendAgent(t, s, api, stream)
			chunks, reasoning := 5, 2
			if !stream {
				chunks, reasoning = 1, 0
			}
			if rec.Err != nil || len(rec.Chunks) != chunks || rec.ReasoningChunks != reasoning {
				t.Errorf("%s stream=%v: err %+v, %d chunks (%d reasoning), want %d (%d)", api, stream, rec.Err,
					len(rec.Chunks), rec.ReasoningChunks, chunks, reasoning)
			}
			if u := rec.Usage; !u.Reported || u.PromptTokens != 3 || u.CompletionTokens != 5 {
				t.Errorf("%s stream=%v: usage %+v, want 3 prompt and 5 completion tokens", api, stream, u)
			}
			if n := len(strings.Fields(rec.Output)); n != 5 { // one word a token
				t.Errorf("%s stream=%v: output %q", api, stream, rec.Output)
			}
		}
	}
}

// The sim's faults reach both APIs as they reach chat, in each API's own
// error layout.
func TestSimAgentFaults(t *testing.T) {
	s := startAgentSim(t)
	cases := []struct {
		fault  string
		class  metrics.ErrorClass
		status int
		msg    string
	}{
		{"429", metrics.ErrHTTP, 429, "sim: injected rate limit"},
		{"500", metrics.ErrHTTP, 500, "sim: injected server error"},
		{"reset", metrics.ErrReset, 0, ""},
		{"malformed", metrics.ErrMalformed, 0, ""},
		{"stall", "", 0, ""},
	}
	for _, api := range []transport.API{transport.Responses, transport.Messages} {
		for _, tc := range cases {
			rec := sendAgent(t, s, api, true, transport.Header{Name: sim.FaultHeader, Value: tc.fault})
			switch {
			case tc.class == "" && rec.Err != nil:
				t.Errorf("%s %s: failed %+v", api, tc.fault, rec.Err)
			case tc.class == "":
			case rec.Err == nil || rec.Err.Class != tc.class || rec.Err.Status != tc.status || tc.msg != "" && rec.Err.Message != tc.msg:
				t.Errorf("%s %s: failure %+v, want %s %d %q", api, tc.fault, rec.Err, tc.class, tc.status, tc.msg)
			}
		}
	}
	// Anthropic's layout is what a Messages client gets for a bad request.
	c, _ := transport.NewClient(transport.Config{URL: s.URL(), API: transport.Messages, Stream: true, Timeout: 10 * time.Second}, transport.NewClock())
	defer c.Close()
	var rec metrics.Record
	c.Send(context.Background(), []byte(`{"model":"m","messages":[{"role":"user","content":"x"}]}`), &rec)
	if rec.Err == nil || rec.Err.Status != 400 || rec.Err.Message != "max_tokens: Field required" {
		t.Errorf("messages without max_tokens: %+v", rec.Err)
	}
}
