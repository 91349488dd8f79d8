package rendezvous

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// barriers starts shard 0's barrier and dials n−1 others at it.
func barriers(t *testing.T, n int, opts Options) []*Barrier {
	addr := freeAddr(t)
	b0, err := Serve(addr, n, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b0.Close() })
	bs := []*Barrier{b0}
	for i := 1; i < n; i++ {
		b, err := Dial(addr, i, n, opts)
		if err != nil {
			t.Fatal(err)
		}
		bs = append(bs, b)
	}
	return bs
}

// meetAll has every barrier meet at point, the later ones after a delay,
// and returns each shard's start and error.
func meetAll(bs []*Barrier, point string, stagger time.Duration) ([]time.Time, []error) {
	at, errs := make([]time.Time, len(bs)), make([]error, len(bs))
	var wg sync.WaitGroup
	for i, b := range bs {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * stagger)
			at[i], errs[i] = b.Meet(context.Background(), point)
		})
	}
	wg.Wait()
	return at, errs
}

// fixedClock is a wall clock stopped at one instant: starts computed
// from it are exact, whatever the machine's load.
func fixedClock(at time.Time) func() time.Time { return func() time.Time { return at } }

var epoch = time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)

func TestEveryShardGetsOneStartAfterTheLastArrival(t *testing.T) {
	bs := barriers(t, 4, Options{Margin: 100 * time.Millisecond, Timeout: time.Minute, Now: fixedClock(epoch)})
	for _, point := range []string{"e / concurrency4", "e / concurrency8"} {
		at, errs := meetAll(bs, point, 20*time.Millisecond)
		for i, err := range errs {
			if err != nil {
				t.Fatalf("%s: shard %d: %v", point, i, err)
			}
			if want := epoch.Add(100 * time.Millisecond); !at[i].Equal(want) {
				t.Errorf("%s: shard %d starts at %v, want the margin after the last arrival, %v", point, i, at[i], want)
			}
		}
	}
}

func TestStartAtHoldsTheFirstPoint(t *testing.T) {
	start := epoch.Add(700 * time.Millisecond)
	bs := barriers(t, 2, Options{StartAt: start, Margin: 10 * time.Millisecond, Timeout: time.Minute, Now: fixedClock(epoch)})
	at, errs := meetAll(bs, "first", 0)
	if errs[0] != nil || errs[1] != nil || !at[0].Equal(start) || !at[1].Equal(start) {
		t.Fatalf("starts %v (errors %v), want both at --start-at %v", at, errs, start)
	}
	at, _ = meetAll(bs, "second", 0)
	if want := epoch.Add(10 * time.Millisecond); !at[0].Equal(want) || !at[1].Equal(want) {
		t.Errorf("the second point starts at %v, want the margin after its last arrival %v, not --start-at", at, want)
	}
}

// A shard that never comes fails the meeting on every shard that came,
// naming it, once the timeout is up.
func TestADeadShardFailsTheMeeting(t *testing.T) {
	bs := barriers(t, 3, Options{Timeout: 300 * time.Millisecond})
	_, errs := meetAll(bs[:2], "p", 0)
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "[2] never arrived") {
			t.Errorf("shard %d: %v, want shard 2 named as never arrived", i, err)
		}
	}
}

// Shards that start before shard 0 listens keep trying until it does.
func TestShardsWaitForShardZeroToListen(t *testing.T) {
	addr := freeAddr(t)
	b1, _ := Dial(addr, 1, 2, Options{Timeout: 5 * time.Second})
	done := make(chan error, 1)
	go func() { _, err := b1.Meet(context.Background(), "p"); done <- err }()
	time.Sleep(300 * time.Millisecond)
	b0, err := Serve(addr, 2, Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b0.Close()
	if _, err := b0.Meet(context.Background(), "p"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("shard 1: %v", err)
	}
}

func TestFixedStartOnlyStartsOnePoint(t *testing.T) {
	f := &FixedStart{At: time.Unix(100, 0)}
	if at, err := f.Meet(context.Background(), "a"); err != nil || !at.Equal(f.At) {
		t.Fatalf("first point: %v, %v", at, err)
	}
	if _, err := f.Meet(context.Background(), "b"); err == nil || !strings.Contains(err.Error(), "needs --barrier") {
		t.Errorf("second point: %v, want a request for --barrier", err)
	}
}
