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

func sendGenerate(t *testing.T, s *sim.Server, api transport.API, model string, stream bool, headers ...transport.Header) metrics.Record {
	t.Helper()
	c, err := transport.NewClient(transport.Config{URL: s.URL(), API: api, Model: model, Stream: stream, Headers: headers,
		Timeout: 10 * time.Second}, transport.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := transport.BodySpec{API: api, Model: model, Stream: stream}.Body(transport.Prompt{Text: "one two three", MaxTokens: 5})
	var rec metrics.Record
	c.Send(context.Background(), body, &rec)
	return rec
}

// The sim serves TGI's /generate_stream and /generate and Triton's
// v2/models/{model}/generate_stream and /generate in a shape llmbench's
// own client reads back: 5 tokens, no reasoning (neither API has it),
// TGI counting the prompt's 3 words and the 5 tokens, and no usage from KServe, which reports none.
func TestSimServesTGIAndKServe(t *testing.T) {
	s := startAgentSim(t)
	for _, api := range []transport.API{transport.TGI, transport.KServe} {
		for _, stream := range []bool{true, false} {
			rec := sendGenerate(t, s, api, "m", stream)
			chunks := 5
			if !stream {
				chunks = 1
			}
			if rec.Err != nil || len(rec.Chunks) != chunks || rec.ReasoningChunks != 0 {
				t.Errorf("%s stream=%v: err %+v, %d chunks (%d reasoning), want %d", api, stream, rec.Err,
					len(rec.Chunks), rec.ReasoningChunks, chunks)
			}
			want := metrics.Usage{}
			if api == transport.TGI {
				// streamed in details.input_length, whole in x-prompt-tokens
				want = metrics.Usage{PromptTokens: 3, CompletionTokens: 5, Reported: true}
			}
			if rec.Usage != want {
				t.Errorf("%s stream=%v: usage %+v, want %+v", api, stream, rec.Usage, want)
			}
			if n := len(strings.Fields(rec.Output)); n != 5 { // one word a token
				t.Errorf("%s stream=%v: output %q", api, stream, rec.Output)
			}
		}
	}
}

// The sim's faults reach both APIs as they reach chat, in TGI's and
// Triton's error layouts; KServe's path names the model, checked as
// Triton does when the sim is strict about it.
func TestSimGenerateFaults(t *testing.T) {
	s := startAgentSim(t)
	cases := []struct {
		fault  string
		class  metrics.ErrorClass
		status int
		msg    map[transport.API]string
	}{
		{"429", metrics.ErrHTTP, 429, map[transport.API]string{transport.TGI: "overloaded: sim: injected rate limit", transport.KServe: "sim: injected rate limit"}},
		{"500", metrics.ErrHTTP, 500, map[transport.API]string{transport.TGI: "generation: sim: injected server error", transport.KServe: "sim: injected server error"}},
		{"reset", metrics.ErrReset, 0, nil},
		{"malformed", metrics.ErrMalformed, 0, nil},
		{"stall", "", 0, nil},
	}
	for _, api := range []transport.API{transport.TGI, transport.KServe} {
		for _, tc := range cases {
			rec := sendGenerate(t, s, api, "m", true, transport.Header{Name: sim.FaultHeader, Value: tc.fault})
			switch {
			case tc.class == "" && rec.Err != nil:
				t.Errorf("%s %s: failed %+v", api, tc.fault, rec.Err)
			case tc.class == "":
			case rec.Err == nil || rec.Err.Class != tc.class || rec.Err.Status != tc.status || tc.msg != nil && rec.Err.Message != tc.msg[api]:
				t.Errorf("%s %s: failure %+v, want %s %d %q", api, tc.fault, rec.Err, tc.class, tc.status, tc.msg[api])
			}
		}
	}

	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL, cfg.Model, cfg.StrictModel = time.Millisecond, time.Millisecond, "llama", true
	strict, err := sim.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = strict.Close() }()
	if rec := sendGenerate(t, strict, transport.KServe, "other", true); rec.Err == nil || rec.Err.Status != 400 ||
		rec.Err.Message != "Request for unknown model: 'other' is not found" {
		t.Errorf("kserve to an unknown model: %+v", rec.Err)
	}
	if rec := sendGenerate(t, strict, transport.KServe, "llama", false); rec.Err != nil {
		t.Errorf("kserve to its model: %+v", rec.Err)
	}
	if rec := sendGenerate(t, strict, transport.TGI, "any", true); rec.Err != nil { // TGI serves one model, named nowhere
		t.Errorf("tgi on a strict sim: %+v", rec.Err)
	}
}
