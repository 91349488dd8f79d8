package sim

import (
	"context"
	"fmt"
	"net"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/peer"

	"github.com/llmbench/llmbench/transport/tritonpb"
)

// tritonServer serves Triton's KServe v2 gRPC API (GRPCInferenceService)
// over the simulated engine: ServerLive, ServerReady, ModelReady,
// ModelInfer and ModelStreamInfer, each inference request a job like an
// HTTP one (same queue, prefill, decode timing and faults).
type tritonServer struct {
	tritonpb.UnimplementedGRPCInferenceServiceServer
	s     *Server
	conns *connTracker
}

// startGRPC listens on cfg.GRPCAddr and serves the gRPC API until Close.
func (s *Server) startGRPC() error {
	ln, err := net.Listen("tcp", s.cfg.GRPCAddr)
	if err != nil {
		return fmt.Errorf("sim: listen on %s (grpc): %w", s.cfg.GRPCAddr, err)
	}
	s.grpcURL = "grpc://" + ln.Addr().String()
	tracker := &connTracker{Listener: ln, conns: map[string]net.Conn{}}
	s.grpc = grpc.NewServer()
	tritonpb.RegisterGRPCInferenceServiceServer(s.grpc, &tritonServer{s: s, conns: tracker})
	go func() { _ = s.grpc.Serve(tracker) }()
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

// connTracker is the gRPC listener, remembering each accepted connection
// by its peer address so an injected reset can cut the TCP connection a
// stream runs on, as when a server process or a proxy dies mid-stream.
type connTracker struct {
	net.Listener
	mu    sync.Mutex
	conns map[string]net.Conn
}

func (l *connTracker) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.conns[c.RemoteAddr().String()] = c
	l.mu.Unlock()
	return &trackedConn{Conn: c, l: l}, nil
}

// reset closes the connection a stream of ctx runs on with SO_LINGER 0,
// so the client gets an RST.
func (l *connTracker) reset(ctx context.Context) {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return
	}
	l.mu.Lock()
	c := l.conns[p.Addr.String()]
	l.mu.Unlock()
	if tcp, ok := c.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	if c != nil {
		_ = c.Close()
	}
}

type trackedConn struct {
	net.Conn
	l *connTracker
}

func (c *trackedConn) Close() error {
	c.l.mu.Lock()
	delete(c.l.conns, c.RemoteAddr().String())
	c.l.mu.Unlock()
	return c.Conn.Close()
}
