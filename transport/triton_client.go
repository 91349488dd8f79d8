package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport/tritonpb"
)

// streamsPerConn is how many requests in flight one HTTP/2 connection is
// given: Triton's gRPC server (C++ gRPC) and proxies commonly cap
// concurrent streams near 100, beyond which requests would queue in the
// client unseen.
const streamsPerConn = 100

// messageOverhead is what one message may hold beyond its text (the
// response's names, shapes and parameters), so the text limit, not gRPC's
// message limit, is what an answer over MaxResponseSize meets.
const messageOverhead = 64 << 10

// maxTritonConns bounds the connection pool.
const maxTritonConns = 64

// TritonClient sends triton requests — KServe v2 over gRPC, Triton's
// GRPCInferenceService — and records what came back, as Client does for
// the HTTP APIs: ModelStreamInfer when streaming (one stream per request,
// each response a chunk), ModelInfer otherwise. It is safe for concurrent
// use; requests are spread over a small pool of HTTP/2 connections.
type TritonClient struct {
	cfg     Config
	target  TritonTarget
	clock   *Clock
	conns   []*grpc.ClientConn
	stubs   []tritonpb.GRPCInferenceServiceClient
	next    atomic.Uint32
	md      metadata.MD
	readers sync.Pool
	cache   requestCache
}

// NewTritonClient validates cfg (URL as ParseTritonURL reads it) and
// prepares a client stamping with clock. No connection is opened until
// the first request.
func NewTritonClient(cfg Config, clock *Clock) (*TritonClient, error) {
	target, err := ParseTritonURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("invalid url: %w", err)
	}
	if cfg.MaxResponseSize <= 0 {
		cfg.MaxResponseSize = DefaultMaxResponseSize
	}
	n := min(max((cfg.MaxConns+streamsPerConn-1)/streamsPerConn, 1), maxTritonConns)
	c := &TritonClient{cfg: cfg, target: target, clock: clock, md: tritonMetadata(cfg.Headers)}
	c.readers.New = func() any { return &tritonReader{limit: cfg.MaxResponseSize} }
	for range n {
		conn, err := dialTriton(target, cfg.Insecure, cfg.MaxResponseSize)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.conns = append(c.conns, conn)
		c.stubs = append(c.stubs, tritonpb.NewGRPCInferenceServiceClient(conn))
	}
	return c, nil
}

// dialTriton prepares one lazily connecting gRPC connection.
func dialTriton(t TritonTarget, skipVerify bool, maxMsg int64) (*grpc.ClientConn, error) {
	creds := insecure.NewCredentials()
	if t.TLS {
		creds = credentials.NewTLS(&tls.Config{InsecureSkipVerify: skipVerify}) //nolint:gosec // opt-in
	}
	conn, err := grpc.NewClient(t.Addr, grpc.WithTransportCredentials(creds), grpc.WithUserAgent("llmbench"),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(int(min(maxMsg+messageOverhead, math.MaxInt32)))))
	if err != nil {
		return nil, fmt.Errorf("triton %s: %w", t.URL(), err)
	}
	return conn, nil
}

// tritonMetadata is the endpoint's headers as gRPC metadata (lower-case
// keys, as HTTP/2 requires).
func tritonMetadata(headers []Header) metadata.MD {
	if len(headers) == 0 {
		return nil
	}
	md := metadata.MD{}
	for _, h := range headers {
		md.Append(h.Name, h.Value)
	}
	return md
}

// Close closes every connection.
func (c *TritonClient) Close() {
	for _, conn := range c.conns {
		_ = conn.Close()
	}
}

// Target is the gRPC address requests go to, grpc://host:port.
func (c *TritonClient) Target() string { return c.target.URL() }

// stub picks the next connection's client, round robin.
func (c *TritonClient) stub() tritonpb.GRPCInferenceServiceClient {
	return c.stubs[int(c.next.Add(1))%len(c.stubs)]
}

// Send sends body, a triton body (see BodySpec.Body), and fills rec as
// Client.Send does: Sent, Chunks, Output, Done and, on failure, Err.
// Triton reports no usage. It never returns an error: every fault is data.
func (c *TritonClient) Send(ctx context.Context, body []byte, rec *metrics.Record) {
	req, err := c.cache.get(body, c.cfg.Backend, c.cfg.Stream)
	if err != nil {
		rec.Sent = c.clock.Now()
		rec.Done, rec.Err = rec.Sent, fail(metrics.ErrMalformed, 0, "request "+err.Error())
		return
	}
	st := c.readers.Get().(*tritonReader)
	defer c.release(st)
	st.reset()
	call := newTritonCall(ctx, c.md, c.cfg.Timeout, c.cfg.IdleTimeout)
	defer call.end()
	rec.Sent = c.clock.Now()
	if c.cfg.Stream {
		c.stream(call, req, rec, st)
	} else {
		c.unary(call, req, rec, st)
	}
	rec.Output = validText(st.out, rec.ChunkEnds)
}

// release returns st to the pool without a buffer a huge answer grew.
func (c *TritonClient) release(st *tritonReader) {
	if cap(st.out) > bigBuffer {
		st.out = nil
	}
	c.readers.Put(st)
}

// stream sends req on a stream of its own and reads its responses until
// the final one, an error, or the stream's end.
func (c *TritonClient) stream(call *tritonCall, req *tritonpb.ModelInferRequest, rec *metrics.Record, st *tritonReader) {
	s, err := c.stub().ModelStreamInfer(call.ctx)
	if err == nil {
		if err = s.Send(req); errors.Is(err, io.EOF) {
			err = s.RecvMsg(new(tritonpb.ModelStreamInferResponse)) // the stream's real error
		}
	}
	if err == nil {
		err = s.CloseSend()
	}
	if err != nil {
		rec.Done, rec.Err = c.clock.Now(), call.failure(err)
		return
	}
	var m tritonpb.ModelStreamInferResponse
	for {
		err := s.RecvMsg(&m)
		at := c.clock.Now()
		switch {
		case errors.Is(err, io.EOF):
			rec.Done, rec.Err = at, st.ended(rec)
			return
		case err != nil:
			rec.Done, rec.Err = at, call.failure(err)
			return
		}
		call.heard()
		final, f := st.streamed(&m, at, rec)
		if f == nil && final {
			f = st.ended(rec) // the final response: complete, unless nothing came before
		}
		if final || f != nil {
			rec.Done, rec.Err = at, f
			return
		}
	}
}

// unary sends req as one ModelInfer call: one chunk at the answer.
func (c *TritonClient) unary(call *tritonCall, req *tritonpb.ModelInferRequest, rec *metrics.Record, st *tritonReader) {
	resp, err := c.stub().ModelInfer(call.ctx, req)
	rec.Done = c.clock.Now()
	if err != nil {
		rec.Err = call.failure(err)
		return
	}
	if rec.Err = st.take(resp, rec.Done, rec); rec.Err == nil {
		rec.Err = st.whole(rec)
	}
}

// grpcFailure classifies a gRPC error that no timer of the client caused.
func grpcFailure(err error) *metrics.Failure {
	s := status.Convert(err)
	msg := s.Message()
	switch s.Code() {
	case codes.Unavailable:
		if strings.Contains(msg, "while dialing") || strings.Contains(msg, "connection refused") {
			return fail(metrics.ErrConnect, 0, msg)
		}
		return fail(metrics.ErrReset, 0, msg)
	case codes.DeadlineExceeded:
		return fail(metrics.ErrTimeout, 0, msg)
	case codes.Canceled:
		return fail(metrics.ErrCanceled, 0, msg)
	case codes.ResourceExhausted:
		if strings.Contains(msg, "larger than max") {
			return fail(metrics.ErrOversize, 0, msg)
		}
	}
	return fail(metrics.ErrServer, 0, "grpc "+s.Code().String()+": "+msg)
}
