package slowdown

import (
	"context"
	"io"
	"sync"
	"time"
)

// clock is the time the proxy stamps and waits by: the real one in the
// proxy, a scripted one in tests, so the schedule a response follows can
// be checked to the nanosecond without a timing-sensitive test.
type clock interface {
	now() time.Time
	// waitUntil returns once t has come, or ctx's error if ctx ends first.
	waitUntil(ctx context.Context, t time.Time) error
}

type wallClock struct{}

func (wallClock) now() time.Time { return time.Now() }

func (wallClock) waitUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stamped is one event and when the read that completed it returned.
type stamped struct {
	bytes []byte
	at    time.Time
}

// heldBody is a response body handed out on the schedule of Shares: a
// goroutine of its own reads the upstream body, so every event is stamped
// when it arrives however long earlier ones are held, and queues it; Read
// takes the events in order and waits for each one's release. The queue
// holds what upstream sent and the client has not yet got: at most the
// response.
type heldBody struct {
	ctx       context.Context
	clock     clock
	shares    Shares
	forwarded time.Time
	upstream  io.ReadCloser

	mu    sync.Mutex
	queue []stamped
	end   error         // io.EOF or the upstream's error, once reading stopped
	wake  chan struct{} // a token when the queue or end changed
	done  chan struct{} // closed when the reading goroutine has returned

	first time.Time // the first event's arrival, once taken
	cur   []byte    // the rest of the event being handed out
}

// hold starts reading upstream. stream says the body is an event stream;
// any other body is one event, its whole self.
func hold(ctx context.Context, c clock, s Shares, forwarded time.Time, upstream io.ReadCloser, stream bool) *heldBody {
	h := &heldBody{ctx: ctx, clock: c, shares: s, forwarded: forwarded, upstream: upstream,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	go h.read(stream)
	return h
}

// read stamps and queues the upstream's events until it ends.
func (h *heldBody) read(stream bool) {
	defer close(h.done)
	var framer eventFramer
	var whole []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := h.upstream.Read(buf)
		at := h.clock.now()
		if stream {
			for _, ev := range framer.push(buf[:n]) {
				h.put(stamped{ev, at}, nil)
			}
		} else {
			whole = append(whole, buf[:n]...)
		}
		if err != nil {
			if !stream {
				framer.pending = whole
			}
			if tail := framer.rest(); len(tail) > 0 {
				h.put(stamped{tail, at}, nil)
			}
			h.put(stamped{}, err)
			return
		}
	}
}

// put queues an event (when it has bytes) or records the end.
func (h *heldBody) put(ev stamped, end error) {
	h.mu.Lock()
	if ev.bytes != nil {
		h.queue = append(h.queue, ev)
	}
	if end != nil {
		h.end = end
	}
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// next takes the oldest queued event, waiting for one; at the end it
// returns the reason (io.EOF when upstream finished cleanly).
func (h *heldBody) next() (stamped, error) {
	for {
		h.mu.Lock()
		if len(h.queue) > 0 {
			ev := h.queue[0]
			h.queue[0] = stamped{}
			h.queue = h.queue[1:]
			h.mu.Unlock()
			return ev, nil
		}
		end := h.end
		h.mu.Unlock()
		if end != nil {
			return stamped{}, end
		}
		select {
		case <-h.wake:
		case <-h.ctx.Done():
			return stamped{}, h.ctx.Err()
		}
	}
}

// Read hands out the next event's bytes once its release time has come.
func (h *heldBody) Read(p []byte) (int, error) {
	if len(h.cur) == 0 {
		ev, err := h.next()
		if err != nil {
			return 0, err
		}
		if h.first.IsZero() {
			h.first = ev.at
		}
		release := h.forwarded.Add(h.shares.Release(h.first.Sub(h.forwarded), ev.at.Sub(h.forwarded)))
		if err := h.clock.waitUntil(h.ctx, release); err != nil {
			return 0, err
		}
		h.cur = ev.bytes
	}
	n := copy(p, h.cur)
	h.cur = h.cur[n:]
	return n, nil
}

// Close closes the upstream body, which ends the reading goroutine, and
// waits for it: a client that goes away leaves nothing behind.
func (h *heldBody) Close() error {
	err := h.upstream.Close()
	<-h.done
	return err
}
