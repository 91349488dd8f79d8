package transport

import (
	"context"
	"encoding/binary"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport/tritonpb"
)

// scriptedTriton is a purpose-built Triton gRPC server on 127.0.0.1 that
// misbehaves on cue: each RPC runs the test's script. It keeps the
// requests and metadata it received.
type scriptedTriton struct {
	tritonpb.UnimplementedGRPCInferenceServiceServer
	stream func(s tritonpb.GRPCInferenceService_ModelStreamInferServer) error
	unary  func(ctx context.Context) (*tritonpb.ModelInferResponse, error)
	live   bool
	ready  map[string]bool

	mu   sync.Mutex
	reqs []*tritonpb.ModelInferRequest
	md   []metadata.MD
}

func (s *scriptedTriton) keep(ctx context.Context, r *tritonpb.ModelInferRequest) {
	md, _ := metadata.FromIncomingContext(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
	s.md = append(s.md, md)
}

func (s *scriptedTriton) received() ([]*tritonpb.ModelInferRequest, []metadata.MD) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs, s.md
}

func (s *scriptedTriton) ModelStreamInfer(st tritonpb.GRPCInferenceService_ModelStreamInferServer) error {
	r, err := st.Recv()
	if err != nil {
		return err
	}
	s.keep(st.Context(), r)
	return s.stream(st)
}

func (s *scriptedTriton) ModelInfer(ctx context.Context, r *tritonpb.ModelInferRequest) (*tritonpb.ModelInferResponse, error) {
	s.keep(ctx, r)
	return s.unary(ctx)
}

func (s *scriptedTriton) ServerLive(context.Context, *tritonpb.ServerLiveRequest) (*tritonpb.ServerLiveResponse, error) {
	return &tritonpb.ServerLiveResponse{Live: s.live}, nil
}

func (s *scriptedTriton) ModelReady(_ context.Context, r *tritonpb.ModelReadyRequest) (*tritonpb.ModelReadyResponse, error) {
	return &tritonpb.ModelReadyResponse{Ready: s.ready[r.GetName()]}, nil
}

// startTriton serves srv on 127.0.0.1 until the test ends and returns its
// grpc:// URL.
func startTriton(t *testing.T, srv *scriptedTriton) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer()
	tritonpb.RegisterGRPCInferenceServiceServer(g, srv)
	go func() { _ = g.Serve(ln) }()
	t.Cleanup(g.Stop)
	return "grpc://" + ln.Addr().String()
}

// newTritonTestClient is a streaming TensorRT-LLM client of url.
func newTritonTestClient(t *testing.T, cfg Config) *TritonClient {
	t.Helper()
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	c, err := NewTritonClient(cfg, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// textPiece is a streamed response carrying text, marked final or not.
func textPiece(text string, final bool) *tritonpb.ModelStreamInferResponse {
	raw := binary.LittleEndian.AppendUint32(nil, uint32(len(text)))
	return &tritonpb.ModelStreamInferResponse{InferResponse: &tritonpb.ModelInferResponse{
		ModelName:         "m",
		Outputs:           []*tritonpb.ModelInferResponse_InferOutputTensor{{Name: "text_output", Datatype: "BYTES", Shape: []int64{1, 1}}},
		RawOutputContents: [][]byte{append(raw, text...)},
		Parameters:        finalParam(final),
	}}
}

// emptyFinal is the empty response that ends a request.
func emptyFinal() *tritonpb.ModelStreamInferResponse {
	return &tritonpb.ModelStreamInferResponse{InferResponse: &tritonpb.ModelInferResponse{ModelName: "m", Parameters: finalParam(true)}}
}

func finalParam(final bool) map[string]*tritonpb.InferParameter {
	return map[string]*tritonpb.InferParameter{"triton_final_response": {ParameterChoice: &tritonpb.InferParameter_BoolParam{BoolParam: final}}}
}

// checkStamps asserts the record's times are ordered: sent, chunks, done.
func checkStamps(t *testing.T, rec *metrics.Record) {
	t.Helper()
	prev := rec.Sent
	for _, c := range rec.Chunks {
		if c < prev {
			t.Errorf("chunk at %d before %d (sent %d)", c, prev, rec.Sent)
		}
		prev = c
	}
	if rec.Done < prev {
		t.Errorf("done at %d before the last chunk %d", rec.Done, prev)
	}
}
