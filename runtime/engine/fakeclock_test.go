package engine

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// fakeClock is a Clock that moves only when onFakeClock moves it: to the
// earliest pending timer, once every goroutine of the test is blocked.
// A scheduler on it sends at exactly its planned instants, however busy
// the machine, and a minute of schedule takes no time at all.
type fakeClock struct {
	mu     sync.Mutex
	now    int64
	timers []*fakeTimer
}

type fakeTimer struct {
	at    int64
	fired chan time.Time
}

// fakeEpoch is where a fake clock starts: a round instant, so a test's
// shared start (StartAt) can be written as an offset from it.
var fakeEpoch = time.Unix(1_700_000_000, 0)

func newFakeClock() *fakeClock { return &fakeClock{now: fakeEpoch.UnixNano()} }

func (f *fakeClock) Now() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) FromTime(t time.Time) int64 { return t.UnixNano() }

func (f *fakeClock) Timer(at int64) (<-chan time.Time, func() bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{at: at, fired: make(chan time.Time, 1)}
	if at <= f.now {
		t.fired <- time.Unix(0, f.now)
		return t.fired, func() bool { return false }
	}
	f.timers = append(f.timers, t)
	return t.fired, func() bool { return f.stop(t) }
}

func (f *fakeClock) stop(t *fakeTimer) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := slices.Index(f.timers, t)
	if i < 0 {
		return false
	}
	f.timers = slices.Delete(f.timers, i, i+1)
	return true
}

// advance moves the clock to the earliest pending timer and fires every
// timer due then; false when none is pending.
func (f *fakeClock) advance() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.timers) == 0 {
		return false
	}
	next := slices.MinFunc(f.timers, func(a, b *fakeTimer) int { return int(a.at - b.at) }).at
	f.now = next
	f.timers = slices.DeleteFunc(f.timers, func(t *fakeTimer) bool {
		if t.at > next {
			return false
		}
		t.fired <- time.Unix(0, next)
		return true
	})
	return true
}

// after is how long the fake clock has run since it started.
func (f *fakeClock) after() time.Duration { return time.Duration(f.Now() - fakeEpoch.UnixNano()) }

// onFakeClock runs body on a fake clock inside a synctest bubble: each time
// every goroutine is blocked, the clock moves to its next timer. It fails
// the test when everything is blocked and no timer is pending (a
// scheduler that would hang).
func onFakeClock(t *testing.T, body func(clock *fakeClock)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		clock := newFakeClock()
		done := make(chan struct{})
		go func() {
			defer close(done)
			body(clock)
		}()
		for {
			synctest.Wait()
			select {
			case <-done:
				return
			default:
			}
			if !clock.advance() {
				t.Fatalf("every goroutine is blocked at +%v and no timer is pending", clock.after())
			}
		}
	})
}

// clockSender stands in for the network to test scheduling alone: each
// request takes d on the fake clock (or until release closes, when set),
// and the sender keeps the instants it sent at and how many were in flight.
type clockSender struct {
	clock    *fakeClock
	d        time.Duration
	release  chan struct{}
	inFlight atomic.Int64
	peak     atomic.Int64
	mu       sync.Mutex
	sent     []int64 // clock ns of every send, in order
}

func (s *clockSender) Send(ctx context.Context, _ []byte, rec *metrics.Record) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
	}
	rec.Sent = s.clock.Now()
	s.mu.Lock()
	s.sent = append(s.sent, rec.Sent)
	s.mu.Unlock()
	fired, stop := s.clock.Timer(rec.Sent + int64(s.d))
	defer stop()
	if s.release != nil {
		fired = nil
	}
	select {
	case <-fired:
	case <-s.release:
	case <-ctx.Done():
		rec.Err = &metrics.Failure{Class: metrics.ErrCanceled}
		rec.Done = s.clock.Now()
		return
	}
	rec.Done = s.clock.Now()
	rec.Chunks = []int64{rec.Done}
}

// sends are the instants requests were sent at, as offsets from the
// clock's start, sorted.
func (s *clockSender) sends() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]time.Duration, len(s.sent))
	for i, at := range s.sent {
		out[i] = time.Duration(at - fakeEpoch.UnixNano())
	}
	slices.Sort(out)
	return out
}

// ms is a list of offsets in milliseconds, for readable expectations.
func ms(offsets ...float64) []time.Duration {
	out := make([]time.Duration, len(offsets))
	for i, o := range offsets {
		out[i] = time.Duration(o * float64(time.Millisecond))
	}
	return out
}
