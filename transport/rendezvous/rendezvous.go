// Package rendezvous starts every shard of a distributed run on each point
// at the same instant, with nothing to run but the shards themselves
// (SPEC §10): shard 0 serves a small HTTP barrier, the others reach it by
// the stable host name Kubernetes gives an Indexed Job's pod
// (<job>-0.<service>) or 127.0.0.1 in a test. Each shard calls Meet before
// a point; the call returns once all have arrived, with the instant the
// point starts at on every shard, a margin after the last arrival so the
// answer reaches them all first. Clocks are assumed NTP-synchronised: the
// instant is wall time.
package rendezvous

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// Options tune a barrier.
type Options struct {
	// Margin is how long after the last arrival a point starts: time for
	// the answer to reach every shard. 0 means DefaultMargin.
	Margin time.Duration
	// Timeout bounds one meeting: a shard that has not arrived by then has
	// died, and the others give up. 0 means DefaultTimeout.
	Timeout time.Duration
	// StartAt, when set, is the earliest start of the first point
	// (--start-at): a run scheduled for a given instant.
	StartAt time.Time
}

// The defaults: half a second covers an answer's trip through a cluster
// network many times over; ten minutes covers a slow point on one shard.
const (
	DefaultMargin  = 500 * time.Millisecond
	DefaultTimeout = 10 * time.Minute
)

func (o Options) withDefaults() Options {
	if o.Margin <= 0 {
		o.Margin = DefaultMargin
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return o
}

// Barrier is one shard's side of the rendezvous.
type Barrier struct {
	shard, count int
	addr         string
	opts         Options
	client       *http.Client
	// host is shard 0's meeting place; nil on the other shards.
	host *host
	srv  *http.Server
}

// Serve is shard 0's barrier: it listens on addr's port on every
// interface and takes part in its own meetings.
func Serve(addr string, count int, opts Options) (*Barrier, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("barrier %q: want host:port", addr)
	}
	ln, err := net.Listen("tcp", ":"+port)
	if err != nil {
		return nil, fmt.Errorf("barrier: shard 0 cannot listen on port %s: %w", port, err)
	}
	opts = opts.withDefaults()
	h := &host{count: count, opts: opts, meetings: map[string]*meeting{}}
	b := &Barrier{shard: 0, count: count, addr: addr, opts: opts, host: h,
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	go func() { _ = b.srv.Serve(ln) }()
	return b, nil
}

// Dial is the barrier of shard i (> 0), reaching shard 0 at addr.
func Dial(addr string, shard, count int, opts Options) (*Barrier, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("barrier %q: want host:port", addr)
	}
	opts = opts.withDefaults()
	return &Barrier{shard: shard, count: count, addr: addr, opts: opts,
		client: &http.Client{Timeout: opts.Timeout + time.Minute}}, nil
}

// Close stops shard 0's server.
func (b *Barrier) Close() error {
	if b.srv == nil {
		return nil
	}
	return b.srv.Close()
}

// Meet blocks until every shard has arrived for point and returns the
// instant all of them start it at.
// A shard other than 0 waits a little longer than the meeting's timeout,
// so shard 0's answer naming the shards that never came reaches it.
func (b *Barrier) Meet(ctx context.Context, point string) (time.Time, error) {
	timeout := b.opts.Timeout
	if b.host == nil {
		timeout += answerGrace
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if b.host != nil {
		return b.host.arrive(ctx, point, 0, b.count)
	}
	return b.ask(ctx, point)
}

// answerGrace is how much longer than a meeting a shard waits for shard
// 0's verdict on it.
const answerGrace = 5 * time.Second

// ask calls shard 0 until it answers: it may not be up (or resolvable)
// yet when the other pods start, so a connection error is retried until
// the meeting's timeout.
func (b *Barrier) ask(ctx context.Context, point string) (time.Time, error) {
	q := url.Values{"point": {point}, "shard": {strconv.Itoa(b.shard)}, "count": {strconv.Itoa(b.count)}}
	target := "http://" + b.addr + "/meet?" + q.Encode()
	for {
		at, retry, err := b.askOnce(ctx, target)
		if !retry {
			return at, err
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("shard 0 at %s: %w (last error: %v)", b.addr, ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (b *Barrier) askOnce(ctx context.Context, target string) (time.Time, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return time.Time{}, false, err
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return time.Time{}, ctx.Err() == nil, err
	}
	defer resp.Body.Close()
	var a answer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		return time.Time{}, false, fmt.Errorf("shard 0 answered %s, not a start: %w", resp.Status, err)
	}
	if a.Error != "" {
		return time.Time{}, false, errors.New(a.Error)
	}
	return time.Unix(0, a.StartNs), false, nil
}

// answer is the barrier's reply: the start instant, or why there is none.
type answer struct {
	StartNs int64  `json:"start_unix_ns,omitempty"`
	Error   string `json:"error,omitempty"`
}

// host holds shard 0's meetings, one per point.
type host struct {
	count    int
	opts     Options
	mu       sync.Mutex
	meetings map[string]*meeting
	first    bool // a first meeting was held (StartAt applies to it)
}

type meeting struct {
	arrived map[int]bool
	done    chan struct{}
	at      time.Time
}

func (h *host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	shard, err1 := strconv.Atoi(q.Get("shard"))
	count, err2 := strconv.Atoi(q.Get("count"))
	var a answer
	switch {
	case r.URL.Path != "/meet" || err1 != nil || err2 != nil || q.Get("point") == "":
		a.Error = "barrier: want GET /meet?point=P&shard=I&count=N"
	default:
		ctx, cancel := context.WithTimeout(r.Context(), h.opts.Timeout)
		defer cancel()
		at, err := h.arrive(ctx, q.Get("point"), shard, count)
		if err != nil {
			a.Error = err.Error()
		} else {
			a.StartNs = at.UnixNano()
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(a)
}

// arrive registers shard at point's meeting and waits for the others.
func (h *host) arrive(ctx context.Context, point string, shard, count int) (time.Time, error) {
	if count != h.count || shard < 0 || shard >= h.count {
		return time.Time{}, fmt.Errorf("barrier: shard %d/%d arrived at a run of %d shards", shard, count, h.count)
	}
	m := h.meeting(point, shard)
	select {
	case <-m.done:
		return m.at, nil
	case <-ctx.Done():
		return time.Time{}, fmt.Errorf("point %s: shards %v never arrived: %w", point, h.missing(point), ctx.Err())
	}
}

func (h *host) meeting(point string, shard int) *meeting {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.meetings[point]
	if m == nil {
		m = &meeting{arrived: map[int]bool{}, done: make(chan struct{})}
		h.meetings[point] = m
	}
	if m.arrived[shard] {
		return m
	}
	m.arrived[shard] = true
	if len(m.arrived) == h.count {
		m.at = time.Now().Add(h.opts.Margin)
		if !h.first && m.at.Before(h.opts.StartAt) {
			m.at = h.opts.StartAt
		}
		h.first = true
		close(m.done)
	}
	return m
}

// missing lists the shards that have not arrived at point.
func (h *host) missing(point string) []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []int
	for i := range h.count {
		if m := h.meetings[point]; m == nil || !m.arrived[i] {
			out = append(out, i)
		}
	}
	return out
}

// FixedStart is the rendezvous of a one-point sharded run given
// --start-at and no barrier: every shard starts at the same instant by
// its own clock. A second point has no agreed start and is refused.
type FixedStart struct {
	At time.Time
	mu sync.Mutex
	n  int
}

// Meet returns At for the first point only.
func (f *FixedStart) Meet(_ context.Context, point string) (time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if f.n > 1 {
		return time.Time{}, fmt.Errorf("point %s: --start-at starts only the first point; a run of several points needs --barrier HOST:PORT", point)
	}
	return f.At, nil
}
