package transport

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport/tritonpb"
)

// What the client sends: the body's tensors raw, the model, the one
// output asked for, the explicit final response when streaming, and the
// endpoint's headers as metadata.
func TestTritonClientSendsTensors(t *testing.T) {
	srv := &scriptedTriton{stream: func(s tritonpb.GRPCInferenceService_ModelStreamInferServer) error {
		return s.Send(textPiece(" ok", true))
	}}
	c := newTritonTestClient(t, Config{URL: startTriton(t, srv), Stream: true, Headers: []Header{{"Authorization", "Bearer k"}}})
	body := BodySpec{API: Triton, Model: "ensemble", Stream: true}.Body(Prompt{Text: "hi there", MaxTokens: 7})
	var rec metrics.Record
	c.Send(context.Background(), body, &rec)
	if rec.Err != nil || rec.Output != " ok" || len(rec.Chunks) != 1 {
		t.Fatalf("record: err %v, output %q, %d chunks", rec.Err, rec.Output, len(rec.Chunks))
	}
	reqs, mds := srv.received()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests", len(reqs))
	}
	r := reqs[0]
	if r.GetModelName() != "ensemble" || len(r.GetOutputs()) != 1 || r.GetOutputs()[0].GetName() != "text_output" {
		t.Errorf("model %q, outputs %v", r.GetModelName(), r.GetOutputs())
	}
	if !r.GetParameters()["triton_enable_empty_final_response"].GetBoolParam() {
		t.Errorf("parameters %v lack triton_enable_empty_final_response", r.GetParameters())
	}
	if got := mds[0].Get("authorization"); len(got) != 1 || got[0] != "Bearer k" {
		t.Errorf("authorization metadata %v", got)
	}
	want := []struct {
		name, dtype string
		raw         []byte
	}{
		{"text_input", "BYTES", append([]byte{8, 0, 0, 0}, "hi there"...)},
		{"max_tokens", "INT32", []byte{7, 0, 0, 0}},
		{"exclude_input_in_output", "BOOL", []byte{1}},
		{"stream", "BOOL", []byte{1}},
	}
	if len(r.GetInputs()) != len(want) || len(r.GetRawInputContents()) != len(want) {
		t.Fatalf("inputs %v, %d raw contents", r.GetInputs(), len(r.GetRawInputContents()))
	}
	for i, w := range want {
		in := r.GetInputs()[i]
		if in.GetName() != w.name || in.GetDatatype() != w.dtype || len(in.GetShape()) != 2 || in.GetShape()[0] != 1 || in.GetShape()[1] != 1 {
			t.Errorf("input %d: %s %s %v, want %s %s [1 1]", i, in.GetName(), in.GetDatatype(), in.GetShape(), w.name, w.dtype)
		}
		if string(r.GetRawInputContents()[i]) != string(w.raw) {
			t.Errorf("input %s raw % x, want % x", w.name, r.GetRawInputContents()[i], w.raw)
		}
	}
}

// Faults of the server and the network, each a failure of its class.
func TestTritonClientFaults(t *testing.T) {
	cases := []struct {
		name   string
		cfg    Config
		stream func(s tritonpb.GRPCInferenceService_ModelStreamInferServer) error
		class  metrics.ErrorClass
		chunks int
		msg    string
	}{
		{name: "status error", class: metrics.ErrServer, msg: "grpc InvalidArgument: unexpected inference input 'foo'",
			stream: func(tritonpb.GRPCInferenceService_ModelStreamInferServer) error {
				return status.Error(codes.InvalidArgument, "unexpected inference input 'foo'")
			}},
		{name: "idle after a piece", cfg: Config{IdleTimeout: 100 * time.Millisecond}, class: metrics.ErrTimeout, chunks: 1,
			msg: "no data from the server for 100ms (idle timeout",
			stream: func(s tritonpb.GRPCInferenceService_ModelStreamInferServer) error {
				_ = s.Send(textPiece(" a", false))
				<-s.Context().Done()
				return nil
			}},
		{name: "slow past the request timeout", cfg: Config{Timeout: 300 * time.Millisecond, IdleTimeout: time.Second},
			class: metrics.ErrTimeout, msg: "no final response within the request timeout (300ms)",
			stream: func(s tritonpb.GRPCInferenceService_ModelStreamInferServer) error {
				for {
					if err := s.Send(textPiece(" a", false)); err != nil {
						return err
					}
					select {
					case <-s.Context().Done():
						return nil
					case <-time.After(20 * time.Millisecond):
					}
				}
			}},
		{name: "oversize", cfg: Config{MaxResponseSize: 4}, class: metrics.ErrOversize, chunks: 1,
			msg: "response larger than the 4B limit",
			stream: func(s tritonpb.GRPCInferenceService_ModelStreamInferServer) error {
				_ = s.Send(textPiece(" ab", false))
				return s.Send(textPiece(" cd", true))
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.URL, cfg.Stream = startTriton(t, &scriptedTriton{stream: tc.stream}), true
			c := newTritonTestClient(t, cfg)
			var rec metrics.Record
			c.Send(context.Background(), []byte(`{"model":"m","text_input":["x"]}`), &rec)
			checkStamps(t, &rec)
			if rec.Err == nil || rec.Err.Class != tc.class || !strings.HasPrefix(rec.Err.Message, tc.msg) {
				t.Fatalf("failure %+v, want class %s, message %q...", rec.Err, tc.class, tc.msg)
			}
			if len(rec.Chunks) < tc.chunks {
				t.Errorf("%d chunks, want at least %d", len(rec.Chunks), tc.chunks)
			}
		})
	}
}

// A measured request's timing comes from when its messages arrived: the
// server's gaps show between the chunks (generous bounds: never wall time
// to the millisecond).
func TestTritonClientChunkTiming(t *testing.T) {
	srv := &scriptedTriton{stream: func(s tritonpb.GRPCInferenceService_ModelStreamInferServer) error {
		for i := range 3 {
			time.Sleep(40 * time.Millisecond)
			if err := s.Send(textPiece(" w", false)); err != nil {
				return err
			}
			_ = i
		}
		return s.Send(emptyFinal())
	}}
	c := newTritonTestClient(t, Config{URL: startTriton(t, srv), Stream: true})
	var rec metrics.Record
	c.Send(context.Background(), []byte(`{"model":"m","text_input":["x"]}`), &rec)
	if rec.Err != nil || len(rec.Chunks) != 3 || rec.Output != " w w w" {
		t.Fatalf("err %v, %d chunks, output %q", rec.Err, len(rec.Chunks), rec.Output)
	}
	for i, c := range rec.Chunks {
		prev := rec.Sent
		if i > 0 {
			prev = rec.Chunks[i-1]
		}
		if gap := time.Duration(c - prev); gap < 30*time.Millisecond || gap > 2*time.Second {
			t.Errorf("gap %d = %s, want about 40ms", i, gap)
		}
	}
}

// Failures before any response: nothing listening, the run interrupted.
func TestTritonClientConnectAndCancel(t *testing.T) {
	c := newTritonTestClient(t, Config{URL: "grpc://127.0.0.1:1", Stream: true})
	var rec metrics.Record
	c.Send(context.Background(), []byte(`{"model":"m","text_input":["x"]}`), &rec)
	if rec.Err == nil || rec.Err.Class != metrics.ErrConnect {
		t.Errorf("unreachable server: %+v, want connect", rec.Err)
	}

	started := make(chan struct{})
	srv := &scriptedTriton{stream: func(s tritonpb.GRPCInferenceService_ModelStreamInferServer) error {
		_ = s.Send(textPiece(" a", false))
		close(started)
		<-s.Context().Done()
		return nil
	}}
	c = newTritonTestClient(t, Config{URL: startTriton(t, srv), Stream: true})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; time.Sleep(20 * time.Millisecond); cancel() }()
	rec = metrics.Record{}
	c.Send(ctx, []byte(`{"model":"m","text_input":["x"]}`), &rec)
	if rec.Err == nil || rec.Err.Class != metrics.ErrCanceled || len(rec.Chunks) != 1 {
		t.Errorf("interrupted: %+v with %d chunks, want canceled after 1", rec.Err, len(rec.Chunks))
	}
}

// ModelInfer (stream=False): one chunk at the answer; a status error is
// the server's.
func TestTritonClientUnary(t *testing.T) {
	answer := &tritonpb.ModelInferResponse{Outputs: []*tritonpb.ModelInferResponse_InferOutputTensor{{Name: "text_output", Datatype: "BYTES"}},
		RawOutputContents: [][]byte{append(binary.LittleEndian.AppendUint32(nil, 5), " done"...)}}
	fail := false
	srv := &scriptedTriton{unary: func(context.Context) (*tritonpb.ModelInferResponse, error) {
		if fail {
			return nil, status.Error(codes.NotFound, "Request for unknown model: 'x' is not found")
		}
		return answer, nil
	}}
	c := newTritonTestClient(t, Config{URL: startTriton(t, srv)})
	var rec metrics.Record
	c.Send(context.Background(), BodySpec{API: Triton, Model: "m"}.Body(Prompt{Text: "q"}), &rec)
	if rec.Err != nil || rec.Output != " done" || len(rec.Chunks) != 1 || rec.Chunks[0] != rec.Done {
		t.Fatalf("err %v, output %q, chunks %v, done %d", rec.Err, rec.Output, rec.Chunks, rec.Done)
	}
	reqs, _ := srv.received()
	if reqs[0].GetParameters() != nil {
		t.Errorf("a unary request asks for no final response, got %v", reqs[0].GetParameters())
	}
	fail, rec = true, metrics.Record{}
	c.Send(context.Background(), BodySpec{API: Triton, Model: "m"}.Body(Prompt{Text: "q"}), &rec)
	if rec.Err == nil || rec.Err.Class != metrics.ErrServer || rec.Err.Message != "grpc NotFound: Request for unknown model: 'x' is not found" {
		t.Errorf("failure %+v", rec.Err)
	}
}

// The readiness check names what is not ready.
func TestTritonReady(t *testing.T) {
	url := startTriton(t, &scriptedTriton{live: true, ready: map[string]bool{"ensemble": true}})
	ctx := context.Background()
	if err := TritonReady(ctx, Config{URL: url}, []string{"ensemble"}, 5*time.Second); err != nil {
		t.Errorf("ready server: %v", err)
	}
	err := TritonReady(ctx, Config{URL: url}, []string{"ensemble", "llama"}, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), `model "llama" is not ready`) {
		t.Errorf("unloaded model: %v", err)
	}
	dead := startTriton(t, &scriptedTriton{live: false})
	if err := TritonReady(ctx, Config{URL: dead}, nil, 5*time.Second); err == nil || !strings.Contains(err.Error(), "not live") {
		t.Errorf("server not live: %v", err)
	}
	if err := TritonReady(ctx, Config{URL: "grpc://127.0.0.1:1"}, nil, 5*time.Second); err == nil || strings.Contains(err.Error(), "not ready") {
		t.Errorf("unreachable server: %v, want an error that is not 'not ready'", err)
	}
}
