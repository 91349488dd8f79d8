package bench

import (
	"bytes"
	"context"
	goruntime "runtime"
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

// TestStreamStackStaysSmall holds streams open — each dialed for it, its
// request written, its headers read, parked in the body read as a stream
// waiting for its next token spends its life — through the engine and the
// HTTP client, the idle watchdog on as the CLI has it, and measures the
// goroutine stack each holds (MemStats.StackInuse, after a collection):
// at most 6 KiB, i.e. a 4 KiB stack and not 8. A stream parked in its
// read uses ~2.3 KiB of its stack, and the runtime halves a stack only
// when under a quarter of it is in use, so a stack that once grew to
// 8 KiB — for a dial, fasthttp's request and header work, the buffers
// allocated on the way — stays 8 KiB for the whole stream: 40 MB more at
// 10,000 streams. The simulator is a process of its own, and its tokens
// never come, so every stream is parked when the stacks are counted.
func TestStreamStackStaysSmall(t *testing.T) {
	const streams = 1000
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL, cfg.ITLPerSeq, cfg.PrefillPerToken, cfg.Jitter, cfg.MaxBatch = time.Hour, time.Hour, 0, 0, 0, streams
	url := startSim(t, cfg)
	clock := transport.NewClock()
	client, err := transport.NewClient(transport.Config{URL: url, API: transport.Chat, Stream: true,
		Timeout: 2 * time.Hour, IdleTimeout: 2 * time.Hour, MaxConns: streams}, clock)
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
		p := engine.Point{Load: plan.Load{Concurrency: streams}, Stop: plan.Stop{Requests: streams}, OnRecord: func(metrics.Record) {}}
		ran <- engine.Run(ctx, p, client, clock, reqs)
	}()
	defer func() { cancel(); <-ran }()
	waitForParkedStreams(t, streams)
	goruntime.GC()
	after := memStats()
	perStream := (float64(after.StackInuse) - float64(before.StackInuse)) / streams / 1024
	t.Logf("goroutine stack per open stream: %.2f KiB", perStream)
	if perStream > 6 {
		t.Errorf("each open stream holds %.2f KiB of goroutine stack, want a 4 KiB stack (at most 6 KiB)", perStream)
	}
}

// waitForParkedStreams waits until n goroutines are in a stream's body
// read (streamState.readStream); it gives up after a minute, which only a
// broken client or simulator takes.
func waitForParkedStreams(t *testing.T, n int) {
	t.Helper()
	buf := make([]byte, 64<<20)
	for give := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		dump := buf[:goruntime.Stack(buf, true)]
		parked := bytes.Count(dump, []byte("transport.(*streamState).readStream("))
		if parked >= n {
			return
		}
		if time.Now().After(give) {
			t.Fatalf("%d of %d streams reached their body read", parked, n)
		}
	}
}
