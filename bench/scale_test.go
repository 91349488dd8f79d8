package bench

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goruntime "runtime"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
)

// scaleEnv sets the number of concurrent streams of BenchmarkScaleStreams;
// unset, the benchmark is skipped: at 19,000 streams it takes minutes
// and every file descriptor the machine allows.
const scaleEnv = "LLMBENCH_SCALE_STREAMS"

// scaleSideEnv, set to "client" or "raw", runs only that side (for a CPU
// profile of one of them).
const scaleSideEnv = "LLMBENCH_SCALE_SIDE"

// The scale load: every stream at scaleITL between tokens (1 token/s), long
// enough that all are open at once when memory is sampled.
const (
	scaleTokens = 40
	scaleITL    = time.Second
	scaleSample = 25 * time.Second // after the start: the last connect is in, no stream has ended
)

// BenchmarkScaleStreams holds as many concurrent streams from one process
// as LLMBENCH_SCALE_STREAMS asks (the file limit caps it: one socket per
// stream here, one in the simulator's process), first through llmbench's
// engine and client, then through a raw-socket reader of the same streams
// that only finds the SSE event boundaries. It reports, for each, CPU per
// token and resident memory per open stream, and the ratio of the CPU
// figures:
//
//	LLMBENCH_SCALE_STREAMS=19000 go test -run '^$' -bench ScaleStreams -benchtime 1x -timeout 30m ./bench/
func BenchmarkScaleStreams(b *testing.B) {
	streams, _ := strconv.Atoi(os.Getenv(scaleEnv))
	if streams <= 0 {
		b.Skipf("set %s to the number of concurrent streams (e.g. 19000) to run", scaleEnv)
	}
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL, cfg.ITLPerSeq, cfg.PrefillPerToken, cfg.Jitter = scaleITL, scaleITL, 0, 0, 0
	cfg.MaxBatch, cfg.DefaultOutputTokens = streams, scaleTokens
	url := startSim(b, cfg)
	ep := runtime.Endpoint{API: transport.Chat, Stream: true, Model: "bench"}
	entries, _ := dataset.Synthetic{Input: dataset.Fixed{N: 16}, Output: dataset.Fixed{N: scaleTokens}, Entries: 100}.Build(0)
	reqs := runtime.Requests(ep, entries)
	side := os.Getenv(scaleSideEnv)
	for range b.N {
		var client, raw scaleRun
		if side != "raw" {
			client = scaleClient(b, url, streams, reqs)
		}
		if side != "client" {
			raw = scaleRaw(b, url, streams, reqs[0].Body)
		}
		b.ReportMetric(client.cpuPerToken(), "client-cpu-ns/token")
		b.ReportMetric(raw.cpuPerToken(), "raw-cpu-ns/token")
		b.ReportMetric(client.cpuPerToken()/raw.cpuPerToken(), "client/raw-cpu")
		b.ReportMetric(client.perStream(), "client-KiB-RSS/stream")
		b.ReportMetric(raw.perStream(), "raw-KiB-RSS/stream")
		b.ReportMetric(float64(client.open), "client-open-streams")
		b.ReportMetric(float64(raw.open), "raw-open-streams")
		b.ReportMetric(float64(client.failed), "client-failed")
		b.ReportMetric(float64(raw.failed), "raw-failed")
		if client.failed > 0 || raw.failed > 0 {
			b.Errorf("failed streams: client %d (%s), raw %d (%s)", client.failed, client.firstErr, raw.failed, raw.firstErr)
		}
	}
}

// scaleRun is one side's measurement.
type scaleRun struct {
	cpu      time.Duration
	tokens   int
	rss      int64 // resident bytes added at the sample
	open     int   // streams open at the sample
	failed   int
	firstErr string
}

func (s scaleRun) cpuPerToken() float64 { return float64(s.cpu.Nanoseconds()) / float64(max(s.tokens, 1)) }
func (s scaleRun) perStream() float64   { return float64(s.rss) / float64(max(s.open, 1)) / 1024 }

// rssBytes is this process's resident set size from /proc/self/statm.
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// sampleAt reads the RSS after d, once: mid-run, when every stream is open.
func sampleAt(d time.Duration) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		time.Sleep(d)
		out <- rssBytes()
	}()
	return out
}

// scaleClient runs the streams through the engine and the HTTP client.
func scaleClient(b *testing.B, url string, streams int, reqs []runtime.Request) scaleRun {
	b.Helper()
	clock := transport.NewClock()
	c, err := transport.NewClient(transport.Config{URL: url, API: transport.Chat, Stream: true, Timeout: 10 * time.Minute, MaxConns: streams}, clock)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	goruntime.GC()
	rss0, cpu0 := rssBytes(), cpuTime()
	start := clock.Now()
	sample := sampleAt(scaleSample)
	res := runtime.Run(context.Background(), runtime.Point{Load: runtime.Load{Concurrency: streams}, Stop: runtime.Stop{Requests: streams}}, c, clock, reqs)
	run := scaleRun{cpu: cpuTime() - cpu0}
	run.rss = <-sample - rss0
	at := start + int64(scaleSample)
	for _, rec := range res.Records {
		if rec.Err != nil {
			if run.failed++; run.firstErr == "" {
				run.firstErr = rec.Err.Message
			}
			continue
		}
		if len(rec.Chunks) != scaleTokens {
			b.Fatalf("request %d streamed %d tokens, want %d", rec.ID, len(rec.Chunks), scaleTokens)
		}
		run.tokens += len(rec.Chunks)
		if rec.Sent <= at && rec.Done >= at {
			run.open++
		}
	}
	return run
}

// scaleRaw reads the same streams (the same request body) with nothing
// but net.Conn reads and a count of event boundaries ("\n\n"): the floor
// of any client's CPU per token on this machine.
func scaleRaw(b *testing.B, url string, streams int, body []byte) scaleRun {
	b.Helper()
	addr := strings.TrimPrefix(url, "http://")
	req := []byte("POST /v1/chat/completions HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n" +
		"Connection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + string(body))
	var events, open, failed atomic.Int64
	var firstErr atomic.Value
	goruntime.GC()
	rss0, cpu0 := rssBytes(), cpuTime()
	sample := sampleAt(scaleSample)
	var sampled atomic.Bool
	go func() { <-time.After(scaleSample); sampled.Store(true) }()
	var wg sync.WaitGroup
	for range streams {
		wg.Go(func() {
			n, err := rawStream(addr, req)
			events.Add(int64(n))
			if err != nil {
				failed.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
			} else if sampled.Load() {
				open.Add(1) // still reading when the sample was taken
			}
		})
	}
	wg.Wait()
	run := scaleRun{cpu: cpuTime() - cpu0, open: int(open.Load()), failed: int(failed.Load())}
	run.rss = <-sample - rss0
	// Each stream carries scaleTokens content events (the client counts
	// exactly those) and a few more: role, finish, usage, [DONE].
	run.tokens = scaleTokens * (streams - run.failed)
	if ok := streams - run.failed; ok > 0 && int(events.Load()) < run.tokens {
		b.Fatalf("raw reader: %d events in %d streams, fewer than their %d tokens", events.Load(), ok, run.tokens)
	}
	if s, ok := firstErr.Load().(string); ok {
		run.firstErr = s
	}
	return run
}

// rawStream sends req on a new connection and counts the SSE event
// boundaries of the response until the server closes it.
func rawStream(addr string, req []byte) (int, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if _, err := conn.Write(req); err != nil {
		return 0, err
	}
	buf := make([]byte, 4<<10)
	n, last := 0, byte(0)
	for {
		k, err := conn.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte("\n\n"))
			if last == '\n' && buf[0] == '\n' {
				n++
			}
			last = buf[k-1]
		}
		if errors.Is(err, io.EOF) {
			return n, nil // Connection: close ends the stream
		}
		if err != nil {
			return n, err
		}
	}
}
