package sim

import (
	"context"
	"fmt"
	"net"

	"google.golang.org/grpc"

	"github.com/llmbench/llmbench/transport/tritonpb"
)

// tritonServer serves Triton's KServe v2 gRPC API (GRPCInferenceService)
// over the simulated engine: ServerLive, ServerReady, ModelReady,
// ModelInfer and ModelStreamInfer, each inference request a job like an
// HTTP one (same queue, prefill, decode timing and faults).
type tritonServer struct {
	tritonpb.UnimplementedGRPCInferenceServiceServer
	s *Server
}

// startGRPC listens on cfg.GRPCAddr and serves the gRPC API until Close.
func (s *Server) startGRPC() error {
	ln, err := net.Listen("tcp", s.cfg.GRPCAddr)
	if err != nil {
		return fmt.Errorf("sim: listen on %s (grpc): %w", s.cfg.GRPCAddr, err)
	}
	s.grpcURL = "grpc://" + ln.Addr().String()
	s.grpc = grpc.NewServer()
	tritonpb.RegisterGRPCInferenceServiceServer(s.grpc, &tritonServer{s: s})
	go func() { _ = s.grpc.Serve(ln) }()
	return nil
}

// GRPCURL is the gRPC API's address, "grpc://127.0.0.1:PORT", or "" when
// the server was started without Config.GRPCAddr.
func (s *Server) GRPCURL() string { return s.grpcURL }

// ServerLive says the simulator is live.
func (t *tritonServer) ServerLive(context.Context, *tritonpb.ServerLiveRequest) (*tritonpb.ServerLiveResponse, error) {
	return &tritonpb.ServerLiveResponse{Live: true}, nil
}

// ServerReady says the simulator is ready.
func (t *tritonServer) ServerReady(context.Context, *tritonpb.ServerReadyRequest) (*tritonpb.ServerReadyResponse, error) {
	return &tritonpb.ServerReadyResponse{Ready: true}, nil
}

// ModelReady says a model is ready: any name, or only Config.Model under
// StrictModel, as Triton knows only the models it loaded.
func (t *tritonServer) ModelReady(_ context.Context, r *tritonpb.ModelReadyRequest) (*tritonpb.ModelReadyResponse, error) {
	return &tritonpb.ModelReadyResponse{Ready: !t.s.cfg.StrictModel || r.GetName() == t.s.cfg.Model}, nil
}
