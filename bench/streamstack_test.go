package bench

import (
	"bytes"
	"context"
	"net"
	goruntime "runtime"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
)

// TestStreamStackStaysSmall holds requests open through the engine and
// the HTTP client — each dialed for it, its request written; then parked
// in the body read, as a stream waiting for its next token spends its
// life, or waiting for response headers that do not come, as a request
// queued by a busy server does — with the idle watchdog on as the CLI has
// it, and measures the goroutine stack each holds (MemStats.StackInuse,
// after a collection): at most 6 KiB, i.e. a 4 KiB stack and not 8. A
// stream parked in its read uses ~2.3 KiB of its stack, and the runtime
// halves a stack only when under a quarter of it is in use, so a stack
// that once grew to 8 KiB — for a dial, fasthttp's request and header
// work, the buffers allocated on the way — stays 8 KiB for the whole
// stream: 40 MB more at 10,000 streams.
//
// A stream parked in its read also holds no read buffer (transport's
// readBuf gives it back while the socket is empty): its live heap is at
// most 8 KiB, where a 4 KiB buffer held through the wait made it ~10.
func TestStreamStackStaysSmall(t *testing.T) {
	const streams = 1000
	t.Run("streaming", func(t *testing.T) {
		// The simulator is a process of its own, and its tokens never
		// come.
		cfg := sim.DefaultConfig()
		cfg.TTFT, cfg.ITL, cfg.ITLPerSeq, cfg.PrefillPerToken, cfg.Jitter, cfg.MaxBatch = time.Hour, time.Hour, 0, 0, 0, streams
		measureParkedStacks(t, startSim(t, cfg), streams, "transport.(*streamState).readStream(", 8)
	})
	t.Run("waiting for headers", func(t *testing.T) {
		measureParkedStacks(t, silentServer(t), streams, "transport.(*Client).Send(", 0)
	})
}

// measureParkedStacks sends n requests at once to url and, once n
// goroutines have where on their stacks, checks the stack each holds and,
// when maxHeapKiB > 0, the live heap.
func measureParkedStacks(t *testing.T, url string, n int, where string, maxHeapKiB float64) {
	clock := transport.NewClock()
	client, err := transport.NewClient(transport.Config{URL: url, API: transport.Chat, Stream: true,
		Timeout: 2 * time.Hour, IdleTimeout: 2 * time.Hour, MaxConns: n}, clock)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ep := plan.Endpoint{API: transport.Chat, Stream: true, Model: "bench"}
	entries, _ := dataset.Synthetic{Input: dataset.Fixed{N: 64}, Output: dataset.Fixed{N: 40}, Entries: 16}.Build(0)
	reqs := runtime.Requests(ep, entries)

	goruntime.GC()
	before := memStats()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan *engine.Result, 1)
	go func() {
		p := engine.Point{Load: plan.Load{Concurrency: n}, Stop: plan.Stop{Requests: n}, OnRecord: func(metrics.Record) {}}
		ran <- engine.Run(ctx, p, client, clock, reqs)
	}()
	defer func() { cancel(); <-ran }()
	waitForParked(t, n, where)
	goruntime.GC()
	after := memStats()
	perRequest := (float64(after.StackInuse) - float64(before.StackInuse)) / float64(n) / 1024
	heap := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(n) / 1024
	t.Logf("goroutine stack per open request: %.2f KiB; live heap %.2f KiB", perRequest, heap)
	if perRequest > 6 {
		t.Errorf("each open request holds %.2f KiB of goroutine stack, want a 4 KiB stack (at most 6 KiB)", perRequest)
	}
	if maxHeapKiB > 0 && heap > maxHeapKiB {
		t.Errorf("each open request holds %.2f KiB of live heap, want at most %.0f KiB (no read buffer while it waits)", heap, maxHeapKiB)
	}
}

// waitForParked waits until n goroutines are waiting for their socket to
// be readable with where on their stacks; it gives up after a minute,
// which only a broken client or server takes.
func waitForParked(t *testing.T, n int, where string) {
	t.Helper()
	buf := make([]byte, 64<<20)
	for give := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		parked := 0
		for g := range bytes.SplitSeq(buf[:goruntime.Stack(buf, true)], []byte("\n\n")) {
			if bytes.Contains(g, []byte(where)) && bytes.Contains(g, []byte("internal/poll.(*pollDesc).waitRead(")) {
				parked++
			}
		}
		if parked >= n {
			return
		}
		if time.Now().After(give) {
			t.Fatalf("%d of %d requests reached %s", parked, n, where)
		}
	}
}

// silentServer accepts connections and never answers, with no goroutine
// per connection (whose stacks the test would count); it closes them when
// the test ends.
func silentServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // the request waits in the socket's buffer
			mu.Unlock()
		}
	}()
	return "http://" + ln.Addr().String()
}
