package engine

import (
	"context"
	"net"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// withOpenFiles lowers this process's soft open-file limit to n for the
// test, as `ulimit -n n` would.
func withOpenFiles(t *testing.T, n uint64) {
	t.Helper()
	var was syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &was); err != nil {
		t.Skip("no open-file limit here:", err)
	}
	lowered := was
	lowered.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lowered); err != nil {
		t.Skip("cannot lower the open-file limit:", err)
	}
	t.Cleanup(func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &was) })
}

// TestInFlightBoundFollowsTheOpenFileLimit: without max_concurrency an
// open loop keeps as many requests in flight as the process may open
// connections beside its other files, at most maxOpenLoopConns; a cap is
// its own bound.
func TestInFlightBoundFollowsTheOpenFileLimit(t *testing.T) {
	withOpenFiles(t, FilesBesideConnections+4)
	if got := InFlightBound(plan.Load{Rate: 10}); got != 4 {
		t.Errorf("bound under ulimit -n %d: %d, want 4", FilesBesideConnections+4, got)
	}
	if got := InFlightBound(plan.Load{Rate: 10, MaxConcurrency: 9}); got != 9 {
		t.Errorf("bound under max_concurrency 9: %d, want 9", got)
	}
	withOpenFiles(t, FilesBesideConnections+maxOpenLoopConns+1)
	if got := InFlightBound(plan.Load{Rate: 10}); got != maxOpenLoopConns {
		t.Errorf("bound under a high limit: %d, want %d", got, maxOpenLoopConns)
	}
}

// TestOpenLoopDropsArrivalsOverTheBound: rate(1000) of 40 requests
// against a server that takes a second to answer, with room for 4
// connections (ulimit -n 68): the first 4 arrivals, at 5-8 ms, are sent;
// the other 36 find 4 in flight at their planned instant and are dropped
// and counted, never queued (a goroutine per arrival grew without bound
// before). A warm-up arrival dropped does not count.
func TestOpenLoopDropsArrivalsOverTheBound(t *testing.T) {
	withOpenFiles(t, FilesBesideConnections+4)
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: time.Second}
		p := Point{Load: plan.Load{Rate: 1000, Arrival: plan.Constant}, Stop: plan.Stop{Requests: 38}, Warmup: 2}
		res := Run(context.Background(), p, s, clock, testRequests(1))
		if s.peak.Load() != 4 || res.Dropped != 36 || len(res.Records) != 2 {
			t.Errorf("peak in flight %d, dropped %d, measured %d; want 4, 36 and 2", s.peak.Load(), res.Dropped, len(res.Records))
		}
		if got, want := s.sends(), ms(5, 6, 7, 8); !slices.Equal(got, want) {
			t.Errorf("sent at %v, want %v", got, want)
		}
	})
}

// TestSessionsAtARateDropOverTheBound: sessions started at a rate count
// against the bound while they run (each has at most one turn in flight).
func TestSessionsAtARateDropOverTheBound(t *testing.T) {
	withOpenFiles(t, FilesBesideConnections+2)
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: 100 * time.Millisecond}
		sessions := []dataset.Session{threeTurns("", 0)}
		p := Point{Load: plan.Load{Rate: 100, Arrival: plan.Constant}, Stop: plan.Stop{Sessions: 10}}
		res := RunSessions(context.Background(), p, s, clock, testConversation(sessions, 1))
		// Sessions at 5, 15, ..., 95 ms; each runs 300 ms: the first two run,
		// the other eight find them both under way.
		if s.peak.Load() != 2 || res.Dropped != 8 || len(res.Records) != 6 {
			t.Errorf("peak in flight %d, dropped %d, turns %d; want 2, 8 and 6", s.peak.Load(), res.Dropped, len(res.Records))
		}
	})
}

// TestSlowRecordConsumerHoldsUpOnlyItsRequest: a consumer slow to take
// one record (a full channel behind a parquet write) must not stop the
// others from being handed over: the first OnRecord waits for the second,
// which the run's lock used to keep out.
func TestSlowRecordConsumerHoldsUpOnlyItsRequest(t *testing.T) {
	second := make(chan struct{})
	var calls atomic.Int64
	var blocked atomic.Bool
	p := Point{Load: plan.Load{Concurrency: 2}, Stop: plan.Stop{Requests: 4}, OnRecord: func(metrics.Record) {
		switch calls.Add(1) {
		case 1:
			select {
			case <-second:
			case <-time.After(20 * time.Second): // a hang detector, not a timing
				blocked.Store(true)
			}
		case 2:
			close(second)
		}
	}}
	Run(context.Background(), p, instantSender{transport.NewClock()}, transport.NewClock(), testRequests(1))
	if blocked.Load() || calls.Load() != 4 {
		t.Errorf("records handed over: %d of 4; the second waited for the first: %v", calls.Load(), blocked.Load())
	}
}

// instantSender answers every request at once: what is tested is what
// happens to the records.
type instantSender struct{ clock *transport.Clock }

func (s instantSender) Send(_ context.Context, _ []byte, rec *metrics.Record) {
	rec.Sent = s.clock.Now()
	rec.Done = s.clock.Now()
	rec.Chunks = []int64{rec.Done}
}

// TestInterruptEndsRequestsWaitingForHeaders: an interrupted run against a
// server that reads requests and never answers returns with none of them
// still waiting: they end with the grace, not at their timeout (a minute).
func TestInterruptEndsRequestsWaitingForHeaders(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			defer conn.Close() // held open, silent, until the listener goes
		}
	}()
	clock := transport.NewClock()
	client, err := transport.NewClient(transport.Config{URL: "http://" + ln.Addr().String(), API: transport.Chat,
		Timeout: time.Minute, IdleTimeout: time.Minute, MaxConns: 4}, clock)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	s := &countingSender{Sender: client}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for accepted.Load() < 4 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	p := Point{Load: plan.Load{Concurrency: 4}, Stop: plan.Stop{Requests: 100}}
	res := Run(ctx, p, s, clock, testRequests(1))
	if n := s.inFlight.Load(); n != 0 || !res.Interrupted {
		t.Errorf("%d requests still waiting for headers after the interrupted run returned (interrupted %v)", n, res.Interrupted)
	}
}

// countingSender counts the requests inside Send.
type countingSender struct {
	Sender
	inFlight atomic.Int64
}

func (s *countingSender) Send(ctx context.Context, body []byte, rec *metrics.Record) {
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	s.Sender.Send(ctx, body, rec)
}
