package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/llmbench/llmbench/metrics"
)

// errCanceled is the reason a guard interrupts a stream when the run stops.
var errCanceled = errors.New("run interrupted")

// guard lets another goroutine interrupt a response body that is blocked in
// Read on cancellation, without ever touching the response after its owner
// has released it. It also knows the connection the response came on, to
// tell an idle timeout from the error fasthttp made of it.
type guard struct {
	mu       sync.Mutex
	body     *connBody
	finished bool
	reason   error
	stopCtx  func() bool
	conn     *watchedConn // nil when the connection is not known
	idle     time.Duration
}

func (c *Client) guard(ctx context.Context, resp *fasthttp.Response) *guard {
	g := &guard{idle: c.cfg.IdleTimeout}
	if g.body, _ = resp.BodyStream().(*connBody); g.body != nil {
		g.conn = g.body.watched
	}
	g.stopCtx = context.AfterFunc(ctx, func() { g.interrupt(errCanceled) })
	return g
}

// interrupt closes the stream with reason unless its owner is done with it.
func (g *guard) interrupt(reason error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.finished || g.reason != nil || g.body == nil {
		return
	}
	g.reason = reason
	g.body.interrupt()
}

// finish retires the guard and closes the body stream; the connection goes
// back to the pool only if the body was read to its end.
func (g *guard) finish(resp *fasthttp.Response) {
	g.stopCtx()
	g.mu.Lock()
	g.finished = true
	g.mu.Unlock()
	_ = resp.CloseBodyStream()
}

// failure classifies a read error, preferring the guard's own reason and
// then the idle watchdog's verdict on the connection.
func (g *guard) failure(err error) *metrics.Failure {
	g.mu.Lock()
	reason := g.reason
	g.mu.Unlock()
	switch {
	case reason != nil:
		return classify(reason)
	case g.conn != nil && g.conn.idled.Load():
		return idleFailure(g.idle)
	}
	return classify(err)
}

// idleFailure is the timeout of a response silent for longer than idle.
func idleFailure(idle time.Duration) *metrics.Failure {
	return fail(metrics.ErrTimeout, 0, fmt.Sprintf("no data from the server for %s (idle timeout: --stream-idle-timeout, endpoint idle_timeout=; "+
		"a non-streamed answer sends nothing until it is complete)", idle))
}

// classify maps a client-side error to an error class and message.
func classify(err error) *metrics.Failure {
	return fail(classOf(err), 0, fmt.Sprint(err))
}

func classOf(err error) metrics.ErrorClass {
	var netErr net.Error
	var opErr *net.OpError
	switch {
	case errors.Is(err, errCanceled):
		return metrics.ErrCanceled
	case isOversize(err):
		return metrics.ErrOversize
	case errors.As(err, new(*framingError)):
		return metrics.ErrMalformed
	case errors.Is(err, errIdle), errors.Is(err, fasthttp.ErrTimeout), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &netErr) && netErr.Timeout():
		return metrics.ErrTimeout
	case errors.As(err, new(*tlsHandshakeError)), errors.Is(err, fasthttp.ErrDialTimeout), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, fasthttp.ErrNoFreeConns), errors.As(err, &opErr) && opErr.Op == "dial":
		return metrics.ErrConnect
	}
	// io.ErrUnexpectedEOF, ECONNRESET, EPIPE, a connection closed early.
	return metrics.ErrReset
}
