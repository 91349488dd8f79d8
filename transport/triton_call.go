package transport

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/metadata"

	"github.com/llmbench/llmbench/metrics"
)

// The causes with which a triton call's own timers end it.
var (
	errTritonTimeout = errors.New("request timeout")
	errTritonIdle    = errors.New("idle timeout")
)

// tritonCall is one request's context: cancelled by the run, by the
// request timeout (send to last response) or by the idle timeout (no
// message from the server for that long), each telling failure why.
type tritonCall struct {
	parent  context.Context
	ctx     context.Context
	cancel  context.CancelCauseFunc
	timeout time.Duration
	idle    time.Duration
	whole   *time.Timer
	silence *time.Timer
}

func newTritonCall(parent context.Context, md metadata.MD, timeout, idle time.Duration) *tritonCall {
	ctx, cancel := context.WithCancelCause(parent)
	if md != nil {
		ctx = metadata.NewOutgoingContext(ctx, md)
	}
	k := &tritonCall{parent: parent, ctx: ctx, cancel: cancel, timeout: timeout, idle: idle}
	if timeout > 0 {
		k.whole = time.AfterFunc(timeout, func() { cancel(errTritonTimeout) })
	}
	if idle > 0 {
		k.silence = time.AfterFunc(idle, func() { cancel(errTritonIdle) })
	}
	return k
}

// heard restarts the idle timer: the server just sent a message.
func (k *tritonCall) heard() {
	if k.silence != nil {
		k.silence.Reset(k.idle)
	}
}

// end stops the timers and releases the call (a stream still open is
// cancelled: its request has had its final response).
func (k *tritonCall) end() {
	if k.whole != nil {
		k.whole.Stop()
	}
	if k.silence != nil {
		k.silence.Stop()
	}
	k.cancel(nil)
}

// failure classifies err, the error that ended the call: the run's
// interrupt and the client's own timers first, then what gRPC said.
func (k *tritonCall) failure(err error) *metrics.Failure {
	switch cause := context.Cause(k.ctx); {
	case k.parent.Err() != nil:
		return fail(metrics.ErrCanceled, 0, "run interrupted")
	case errors.Is(cause, errTritonIdle):
		return idleFailure(k.idle)
	case errors.Is(cause, errTritonTimeout):
		return fail(metrics.ErrTimeout, 0, fmt.Sprintf("no final response within the request timeout (%s)", k.timeout))
	}
	return grpcFailure(err)
}
