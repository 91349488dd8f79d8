package sim_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
)

// startTritonSim is a fast, jitter-free sim serving the gRPC API too.
func startTritonSim(t *testing.T, edit func(*sim.Config)) *sim.Server {
	t.Helper()
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.PrefillPerToken, cfg.ITL, cfg.ITLPerSeq, cfg.Jitter = 2*time.Millisecond, 0, time.Millisecond, 0, 0
	cfg.Stall, cfg.Model, cfg.GRPCAddr = 20*time.Millisecond, "ensemble", "127.0.0.1:0"
	if edit != nil {
		edit(&cfg)
	}
	s, err := sim.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func sendTriton(t *testing.T, s *sim.Server, backend string, stream bool, maxTokens int, headers ...transport.Header) metrics.Record {
	t.Helper()
	c, err := transport.NewTritonClient(transport.Config{URL: s.GRPCURL(), API: transport.Triton, Stream: stream, Backend: backend,
		Headers: headers, Timeout: 10 * time.Second}, transport.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := transport.BodySpec{API: transport.Triton, Model: "ensemble", Stream: stream, Backend: backend}.
		Body(transport.Prompt{Text: "one two three", MaxTokens: maxTokens})
	var rec metrics.Record
	c.Send(context.Background(), body, &rec)
	return rec
}

// The sim answers both backends' requests over gRPC, streamed (one
// response per token, then the final one) or whole, and books them as
// its HTTP routes do: the 3 prompt words and the tokens asked for.
func TestSimServesTriton(t *testing.T) {
	s := startTritonSim(t, nil)
	n := 0
	for _, backend := range []string{transport.TensorRTLLM, transport.VLLM} {
		for _, stream := range []bool{true, false} {
			rec := sendTriton(t, s, backend, stream, 5)
			n++
			chunks := 5
			if !stream {
				chunks = 1
			}
			if rec.Err != nil || len(rec.Chunks) != chunks || len(strings.Fields(rec.Output)) != 5 || rec.Usage != (metrics.Usage{}) {
				t.Errorf("%s stream=%v: err %+v, %d chunks, output %q, usage %+v; want %d chunks of 5 words, no usage",
					backend, stream, rec.Err, len(rec.Chunks), rec.Output, rec.Usage, chunks)
			}
		}
	}
	st := s.Stats()
	if st.Requests != int64(n) || st.Completed != int64(n) || st.PromptTokens != 3*int64(n) || st.CompletionTokens != 5*int64(n) {
		t.Errorf("stats %+v, want %d requests completed, %d prompt and %d completion tokens", st, n, 3*n, 5*n)
	}
}

// Without max_tokens a vLLM request gets the sim's default output length;
// many requests at once share the batch as HTTP ones do.
func TestSimTritonDefaultsAndConcurrency(t *testing.T) {
	s := startTritonSim(t, func(c *sim.Config) { c.DefaultOutputTokens, c.MaxBatch = 3, 2 })
	c, err := transport.NewTritonClient(transport.Config{URL: s.GRPCURL(), API: transport.Triton, Stream: true,
		Backend: transport.VLLM, Timeout: 10 * time.Second, MaxConns: 8}, transport.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := transport.BodySpec{API: transport.Triton, Model: "ensemble", Stream: true, Backend: transport.VLLM}.Body(transport.Prompt{Text: "a b"})
	recs := make([]metrics.Record, 8)
	var wg sync.WaitGroup
	for i := range recs {
		wg.Go(func() { c.Send(context.Background(), body, &recs[i]) })
	}
	wg.Wait()
	for i, rec := range recs {
		if rec.Err != nil || len(rec.Chunks) != 3 {
			t.Errorf("request %d: err %+v, %d chunks, want 3", i, rec.Err, len(rec.Chunks))
		}
	}
	if st := s.Stats(); st.Completed != 8 || st.CompletionTokens != 24 {
		t.Errorf("stats %+v, want 8 completed, 24 tokens", st)
	}
}

// The sim's faults reach the gRPC client as data of their classes: 429
// and 500 as the stream's error_message (Triton's way of failing a
// request on a stream), a reset as the connection cut mid-stream, a
// malformed response, a stall that only delays; an unknown model under
// strict_model is refused.
func TestSimTritonFaults(t *testing.T) {
	s := startTritonSim(t, nil)
	cases := []struct {
		fault string
		class metrics.ErrorClass
		msg   string
	}{
		{"429", metrics.ErrServer, "sim: injected rate limit"},
		{"500", metrics.ErrServer, "sim: injected server error"},
		{"reset", metrics.ErrReset, ""},
		{"malformed", metrics.ErrMalformed, ""},
		{"stall", "", ""},
	}
	for _, tc := range cases {
		rec := sendTriton(t, s, transport.TensorRTLLM, true, 4, transport.Header{Name: sim.FaultHeader, Value: tc.fault})
		switch {
		case tc.class == "" && rec.Err != nil:
			t.Errorf("%s: failed %+v", tc.fault, rec.Err)
		case tc.class == "":
		case rec.Err == nil || rec.Err.Class != tc.class || tc.msg != "" && rec.Err.Message != tc.msg:
			t.Errorf("%s: failure %+v, want %s %q", tc.fault, rec.Err, tc.class, tc.msg)
		}
	}
	// unary: the same refusals as gRPC statuses
	if rec := sendTriton(t, s, transport.TensorRTLLM, false, 4, transport.Header{Name: sim.FaultHeader, Value: "500"}); rec.Err == nil ||
		rec.Err.Class != metrics.ErrServer || rec.Err.Message != "grpc Internal: sim: injected server error" {
		t.Errorf("unary 500: %+v", rec.Err)
	}
	st := s.Stats()
	if st.Status429 != 1 || st.Status500 != 2 || st.Resets != 1 || st.Malformed != 1 || st.Stalls != 1 {
		t.Errorf("stats %+v, want one of each fault (two 500s)", st)
	}

	strict := startTritonSim(t, func(c *sim.Config) { c.Model, c.StrictModel = "llama", true })
	if rec := sendTriton(t, strict, transport.TensorRTLLM, true, 2); rec.Err == nil || rec.Err.Class != metrics.ErrServer ||
		rec.Err.Message != "Request for unknown model: 'ensemble' is not found" {
		t.Errorf("unknown model: %+v", rec.Err)
	}
	ctx := context.Background()
	cfg := transport.Config{URL: strict.GRPCURL()}
	if err := transport.TritonReady(ctx, cfg, []string{"llama"}, 5*time.Second); err != nil {
		t.Errorf("ready model: %v", err)
	}
	if err := transport.TritonReady(ctx, cfg, []string{"ensemble"}, 5*time.Second); err == nil {
		t.Error("a strict sim says a model it does not serve is ready")
	}
}

// A server started without GRPCAddr serves no gRPC API.
func TestSimWithoutGRPC(t *testing.T) {
	cfg := sim.DefaultConfig()
	s, err := sim.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	if s.GRPCURL() != "" {
		t.Errorf("GRPCURL %q without GRPCAddr", s.GRPCURL())
	}
}
