package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
)

// client is what Execute sends through: transport.Client for the HTTP
// APIs, transport.TritonClient for api="triton".
type client interface {
	engine.Sender
	Target() string
	Close()
}

// newSender prepares the client of the endpoint's API.
func newSender(job Job, base string, clock *transport.Clock) (client, error) {
	cfg := clientConfig(job, base)
	if job.Endpoint.API == transport.Triton {
		c, err := transport.NewTritonClient(cfg, clock)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	c, err := transport.NewClient(cfg, clock)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// tritonPreflightWait bounds the readiness check of a triton server.
const tritonPreflightWait = 5 * time.Second

// resolveTriton is resolve for api="triton": the target is a gRPC
// address (grpc://host:port), checked with Triton's own ServerLive and
// ModelReady, or the simulator started with its gRPC listener.
func resolveTriton(e plan.Endpoint) (base string, stop func(), err error) {
	if e.IsSim() {
		cfg, err := SimConfig(e.URL)
		if err != nil {
			return "", nil, failure.New(failure.Input, err)
		}
		cfg.GRPCAddr = "127.0.0.1:0"
		srv, err := sim.Start(cfg)
		if err != nil {
			return "", nil, err
		}
		return srv.GRPCURL(), func() { _ = srv.Close() }, nil
	}
	target, err := transport.ParseTritonURL(e.URL)
	if err != nil {
		return "", nil, failure.Inputf("url: %w", err)
	}
	return target.URL(), func() {}, tritonPreflight(e, target)
}

// tritonPreflight asks the server whether it and every model are ready,
// so a wrong port or an unloaded model is one clear error (exit 3).
func tritonPreflight(e plan.Endpoint, target transport.TritonTarget) error {
	cfg := transport.Config{URL: target.URL(), Insecure: e.Insecure, Headers: e.Headers}
	err := transport.TritonReady(context.Background(), cfg, e.ModelNames(), tritonPreflightWait)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, transport.ErrTritonNotReady):
		return failure.New(failure.Run, fmt.Errorf("triton preflight: %s", plan.RedactText(err.Error())))
	}
	return fmt.Errorf("%w: %s", ErrUnreachable, plan.RedactText(err.Error()))
}
