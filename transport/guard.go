package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/llmbench/llmbench/metrics"
)

// errIdle and errCanceled are the reasons a guard interrupts a stream.
var (
	errIdle     = errors.New("no data from the server within the idle timeout")
	errCanceled = errors.New("run interrupted")
)

// guard lets another goroutine interrupt a response body that is blocked in
// Read — on cancellation or when the idle watchdog fires — without ever
// touching the response after its owner has released it.
type guard struct {
	mu       sync.Mutex
	stream   fasthttp.ReadCloserWithError
	finished bool
	reason   error
	last     atomic.Int64 // ns of the last read, for the watchdog
	clock    *Clock
	stopCtx  func() bool
	watch    *watchdog
}

func (c *Client) guard(ctx context.Context, resp *fasthttp.Response) *guard {
	g := &guard{clock: c.clock, watch: c.watch}
	g.stream, _ = resp.BodyStream().(fasthttp.ReadCloserWithError)
	g.stopCtx = context.AfterFunc(ctx, func() { g.interrupt(errCanceled) })
	if g.watch != nil {
		g.touch()
		g.watch.add(g)
	}
	return g
}

// touch records activity for the idle watchdog.
func (g *guard) touch() {
	if g.watch != nil {
		g.last.Store(g.clock.Now())
	}
}

// interrupt closes the stream with reason unless its owner is done with it.
func (g *guard) interrupt(reason error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.finished || g.reason != nil || g.stream == nil {
		return
	}
	g.reason = reason
	_ = g.stream.CloseWithError(reason)
}

// finish retires the guard and closes the body stream; the connection goes
// back to the pool only if the body was read to its end.
func (g *guard) finish(resp *fasthttp.Response) {
	g.stopCtx()
	if g.watch != nil {
		g.watch.remove(g)
	}
	g.mu.Lock()
	g.finished = true
	g.mu.Unlock()
	_ = resp.CloseBodyStream()
}

// failure classifies a read error, preferring the guard's own reason.
func (g *guard) failure(err error) *metrics.Failure {
	g.mu.Lock()
	reason := g.reason
	g.mu.Unlock()
	if reason != nil {
		return classify(reason)
	}
	return classify(err)
}

// watchdog interrupts streams that have been silent for longer than idle.
// One goroutine scans all streams, so a chunk costs one atomic store
// instead of a timer reset.
type watchdog struct {
	idle time.Duration
	mu   sync.Mutex
	set  map[*guard]struct{}
	quit chan struct{}
}

func newWatchdog(idle time.Duration) *watchdog {
	w := &watchdog{idle: idle, set: map[*guard]struct{}{}, quit: make(chan struct{})}
	go w.run(min(max(idle/4, 10*time.Millisecond), time.Second))
	return w
}

func (w *watchdog) add(g *guard) {
	w.mu.Lock()
	w.set[g] = struct{}{}
	w.mu.Unlock()
}

func (w *watchdog) remove(g *guard) {
	w.mu.Lock()
	delete(w.set, g)
	w.mu.Unlock()
}

func (w *watchdog) stop() { close(w.quit) }

func (w *watchdog) run(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-w.quit:
			return
		case <-t.C:
			w.scan()
		}
	}
}

func (w *watchdog) scan() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for g := range w.set {
		if g.clock.Now()-g.last.Load() > int64(w.idle) {
			g.interrupt(errIdle)
		}
	}
}

// classify maps a client-side error to an error class and message.
func classify(err error) *metrics.Failure {
	class := metrics.ErrReset
	var netErr net.Error
	var opErr *net.OpError
	switch {
	case errors.Is(err, errIdle):
		class = metrics.ErrTimeout
	case errors.Is(err, errCanceled):
		class = metrics.ErrCanceled
	case errors.Is(err, fasthttp.ErrTimeout), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &netErr) && netErr.Timeout():
		class = metrics.ErrTimeout
	case errors.Is(err, fasthttp.ErrDialTimeout), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, fasthttp.ErrNoFreeConns), errors.As(err, &opErr) && opErr.Op == "dial":
		class = metrics.ErrConnect
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, fasthttp.ErrConnectionClosed), errors.Is(err, syscall.EPIPE):
		class = metrics.ErrReset
	}
	return &metrics.Failure{Class: class, Message: truncate(fmt.Sprint(err), 200)}
}
