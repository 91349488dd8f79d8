// Package rendezvous starts every shard of a distributed run on each point
// at the same instant, with nothing to run but the shards themselves
// (SPEC §10): shard 0 serves a small HTTP barrier on exactly the address it
// is given, the others reach it by the stable host name Kubernetes gives
// an Indexed Job's pod (<job>-0.<service>) or 127.0.0.1 in a test. Each
// shard calls Meet before a point; the call returns once all have arrived,
// with the instant the point starts at on every shard, a margin after the
// last arrival so the answer reaches them all first. Clocks are assumed
// NTP-synchronised: the instant is wall time.
//
// A barrier decides when load is sent, so it trusts nobody by default:
// shards prove themselves with a shared token (compared in constant time;
// no token is allowed on loopback only), a shard claimed twice, a shard
// count or a point that differs, and a shard whose connection drops while
// it waits all fail the meeting on every shard at once (a load without one
// shard's share would look complete and be wrong), and a start announced
// further away than the meeting's timeout is refused.
package rendezvous

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
	"time"
)

// Options tune a barrier.
type Options struct {
	// Margin is how long after the last arrival a point starts: time for
	// the answer to reach every shard. 0 means DefaultMargin.
	Margin time.Duration
	// Timeout bounds one meeting: a shard that has not arrived by then has
	// died, and the others give up. It also bounds how far from now a
	// start shard 0 announces may lie. It must be positive.
	Timeout time.Duration
	// StartAt, when set, is the earliest start of the first point
	// (--start-at): a run scheduled for a given instant.
	StartAt time.Time
	// Token is the secret every shard shares, sent by the others and
	// checked by shard 0 in constant time. It may be empty only when the
	// barrier's address is a loopback one.
	Token string
	// Now is the wall clock (time.Now when nil); tests set it.
	Now func() time.Time
}

// DefaultMargin: half a second covers an answer's trip through a cluster
// network many times over.
const DefaultMargin = 500 * time.Millisecond

func (o Options) check(addr string) (Options, error) {
	if o.Margin <= 0 {
		o.Margin = DefaultMargin
	}
	if o.Timeout <= 0 {
		return o, fmt.Errorf("barrier timeout %s: want a positive duration", o.Timeout)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, needToken(addr, o.Token)
}

func (o Options) now() time.Time { return o.Now() }

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

// Serve is shard 0's barrier: it listens on exactly listen (a host name
// is resolved, an empty host is every interface) and takes part in its
// own meetings. Without a token, listen must be a loopback address.
func Serve(listen string, count int, opts Options) (*Barrier, error) {
	if _, _, err := net.SplitHostPort(listen); err != nil {
		return nil, fmt.Errorf("barrier %q: want host:port", listen)
	}
	opts, err := opts.check(listen)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("barrier: shard 0 cannot listen on %s: %w", listen, err)
	}
	h := &host{count: count, opts: opts}
	if opts.Token != "" {
		d := tokenDigest(opts.Token)
		h.token = &d
	}
	b := &Barrier{shard: 0, count: count, addr: ln.Addr().String(), opts: opts, host: h,
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 16 << 10}}
	go func() { _ = b.srv.Serve(ln) }()
	return b, nil
}

// Addr is where shard 0 listens (with the port chosen when it was 0).
func (b *Barrier) Addr() string { return b.addr }

// Dial is the barrier of shard i (> 0), reaching shard 0 at addr.
// Without a token, addr must be a loopback address.
func Dial(addr string, shard, count int, opts Options) (*Barrier, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("barrier %q: want host:port", addr)
	}
	opts, err := opts.check(addr)
	if err != nil {
		return nil, err
	}
	// One connection per arrival: its dropping is how shard 0 learns that
	// a shard died, and how a shard learns that shard 0 did.
	transport := &http.Transport{DisableKeepAlives: true, MaxResponseHeaderBytes: 16 << 10}
	return &Barrier{shard: shard, count: count, addr: addr, opts: opts,
		client: &http.Client{Transport: transport, Timeout: opts.Timeout + answerGrace}}, nil
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
	if b.host != nil {
		return b.host.meet(ctx, point)
	}
	ctx, cancel := context.WithTimeout(ctx, b.opts.Timeout+answerGrace)
	defer cancel()
	return b.ask(ctx, point)
}

// answerGrace is how much longer than a meeting a shard waits for shard
// 0's verdict on it.
const answerGrace = 5 * time.Second

// retryEvery is how often a shard tries again to reach a shard 0 that is
// not listening yet.
const retryEvery = 200 * time.Millisecond

// ask calls shard 0 until it answers: it may not be up (or resolvable)
// yet when the other pods start, so a failure to connect is retried until
// the meeting's timeout. Once connected, the request may have arrived: a
// connection lost then means shard 0 died, and is not retried (shard 0
// counts a second arrival of this shard as a fault).
func (b *Barrier) ask(ctx context.Context, point string) (time.Time, error) {
	a := arrival{point: point, shard: b.shard, count: b.count}
	if err := checkPoint(point); err != nil {
		return time.Time{}, err
	}
	for {
		at, connected, err := b.askOnce(ctx, meetURL(b.addr, a))
		if err == nil {
			if err := checkStart(at, b.opts.now(), b.opts.StartAt, b.opts.Timeout); err != nil {
				return time.Time{}, fmt.Errorf("shard 0 at %s %w", b.addr, err)
			}
			return at, nil
		}
		if connected || ctx.Err() != nil {
			return time.Time{}, fmt.Errorf("shard 0 at %s: %w", b.addr, err)
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("shard 0 at %s: %w (last error: %v)", b.addr, ctx.Err(), err)
		case <-time.After(retryEvery):
		}
	}
}

// askOnce sends one arrival; connected says whether a connection to shard
// 0 was made, after which the arrival may have registered.
func (b *Barrier) askOnce(ctx context.Context, target string) (at time.Time, connected bool, err error) {
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { connected = true }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, target, nil)
	if err != nil {
		return time.Time{}, false, err
	}
	if b.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+b.opts.Token)
	}
	resp, err := b.client.Do(req)
	if err != nil {
		var uerr *url.Error // its text repeats the URL; the caller names shard 0
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		if connected {
			err = fmt.Errorf("the connection dropped while this shard waited (shard 0 died or was cut off): %w", err)
		}
		return time.Time{}, connected, err
	}
	defer resp.Body.Close()
	at, err = readAnswer(resp.StatusCode, resp.Body)
	return at, true, err
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
