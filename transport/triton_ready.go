package transport

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/llmbench/llmbench/transport/tritonpb"
)

// ErrTritonNotReady is a triton server that answered but is not live, or
// does not have a model ready.
var ErrTritonNotReady = errors.New("not ready")

// TritonReady asks a triton server, before any load, whether it is live
// (ServerLive) and every model is ready (ModelReady), so a wrong port, a
// server still loading or a misspelt model is one clear error instead of
// thousands of failed requests. A server that cannot be reached is an
// error wrapping neither; one that answers "no" wraps ErrTritonNotReady.
func TritonReady(ctx context.Context, cfg Config, models []string, wait time.Duration) error {
	target, err := ParseTritonURL(cfg.URL)
	if err != nil {
		return err
	}
	conn, err := dialTriton(target, cfg.Insecure, DefaultMaxResponseSize)
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	ctx = outgoing(ctx, cfg.Headers)
	stub := tritonpb.NewGRPCInferenceServiceClient(conn)
	live, err := stub.ServerLive(ctx, &tritonpb.ServerLiveRequest{})
	if err != nil {
		return fmt.Errorf("%s: ServerLive: %s", target.URL(), status.Convert(err).Message())
	}
	if !live.GetLive() {
		return fmt.Errorf("%s: ServerLive says the server is not live: %w", target.URL(), ErrTritonNotReady)
	}
	for _, m := range models {
		ready, err := stub.ModelReady(ctx, &tritonpb.ModelReadyRequest{Name: m})
		if err != nil {
			return fmt.Errorf("%s: ModelReady %q: %s: %w", target.URL(), m, status.Convert(err).Message(), ErrTritonNotReady)
		}
		if !ready.GetReady() {
			return fmt.Errorf("%s: model %q is not ready (not loaded, or misspelt: Triton names models by their repository folder): %w",
				target.URL(), m, ErrTritonNotReady)
		}
	}
	return nil
}

// outgoing attaches the endpoint's headers as gRPC metadata.
func outgoing(ctx context.Context, headers []Header) context.Context {
	if md := tritonMetadata(headers); md != nil {
		return metadata.NewOutgoingContext(ctx, md)
	}
	return ctx
}
