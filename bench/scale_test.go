package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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
	"runtime/pprof"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
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

// scaleSourcesEnv, set to addresses or ranges ("127.0.0.2-127.0.0.9",
// comma-separated), binds the client's connections to them in turn, as
// --source-address does.
const scaleSourcesEnv = "LLMBENCH_SCALE_SOURCES"

// scaleProfileEnv, set to a path prefix, writes a CPU profile of each
// side's steady window to PREFIX-client.prof and PREFIX-raw.prof: the
// whole run's profile is dominated by 19,000 connects.
const scaleProfileEnv = "LLMBENCH_SCALE_PROFILE"

// The scale load: every stream gets a token every scaleITL (1 token/s),
// scaleTokens of them, so each stream is open for about a minute. The
// steady state is the window [scaleFrom, scaleTo) after the start: every
// connect is in (19,000 take ~10 s here), no stream has ended.
const (
	scaleTokens = 60
	scaleITL    = time.Second
	scaleFrom   = 25 * time.Second
	scaleTo     = 50 * time.Second
	scalePause  = 10 * time.Second
)

// BenchmarkScaleStreams holds as many concurrent streams from one process
// as LLMBENCH_SCALE_STREAMS asks (the file limit caps it: one socket per
// stream here, one in the simulator's process), first through llmbench's
// engine and client, then through a raw-socket reader of the same streams
// that only finds the SSE event boundaries. For each it reports CPU per
// token in the steady state (every stream open: no connect, request or
// record in the window) and over the whole run (connects included),
// resident memory per open stream, and the ratio of the steady-state CPU
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
	ep := plan.Endpoint{API: transport.Chat, Stream: true, Model: "bench"}
	entries, _ := dataset.Synthetic{Input: dataset.Fixed{N: 16}, Output: dataset.Fixed{N: scaleTokens}, Entries: 100}.Build(0)
	reqs := runtime.Requests(ep, entries)
	side := os.Getenv(scaleSideEnv)
	for range b.N {
		var client, raw scaleRun
		if side != "raw" {
			client = scaleClient(b, url, streams, reqs)
			b.Logf("client: %s", client)
			// The simulator closes the client's 19,000 kept-alive
			// connections as they are closed here; its file limit is the
			// same, so the raw reader waits until they are gone.
			time.Sleep(scalePause)
		}
		if side != "client" {
			raw = scaleRaw(b, url, streams, reqs[0].Body)
			b.Logf("raw:    %s", raw)
		}
		b.ReportMetric(client.steadyPerToken(), "client-cpu-ns/token")
		b.ReportMetric(raw.steadyPerToken(), "raw-cpu-ns/token")
		b.ReportMetric(client.steadyPerToken()/raw.steadyPerToken(), "client/raw-cpu")
		b.ReportMetric(client.readsPerToken(), "client-reads/token")
		b.ReportMetric(raw.readsPerToken(), "raw-reads/token")
		b.ReportMetric(client.wholePerToken(), "client-run-cpu-ns/token")
		b.ReportMetric(raw.wholePerToken(), "raw-run-cpu-ns/token")
		b.ReportMetric(client.perStream(), "client-KiB-RSS/stream")
		b.ReportMetric(raw.perStream(), "raw-KiB-RSS/stream")
		b.ReportMetric(float64(client.open), "client-open-streams")
		b.ReportMetric(float64(raw.open), "raw-open-streams")
		if client.failed > 0 || raw.failed > 0 {
			b.Errorf("failed streams: client %d (%s), raw %d (%s)", client.failed, client.firstErr, raw.failed, raw.firstErr)
		}
	}
}

// scaleRun is one side's measurement.
type scaleRun struct {
	cpu, steadyCPU       time.Duration // whole run; the steady window
	tokens, steadyTokens int
	rss                  int64 // resident bytes added, sampled at the window's start
	steadyReads          int64 // read system calls in the steady window
	open                 int   // streams open over the whole window
	failed               int
	firstErr             string
}

func (s scaleRun) String() string {
	return fmt.Sprintf("%d open streams, %.1f KiB RSS each; steady state %d tokens in %s CPU (%.0f ns/token, %.2f reads/token); whole run %d tokens in %s CPU; %d failed %s",
		s.open, s.perStream(), s.steadyTokens, s.steadyCPU, s.steadyPerToken(), s.readsPerToken(), s.tokens, s.cpu, s.failed, s.firstErr)
}

func (s scaleRun) steadyPerToken() float64 {
	return float64(s.steadyCPU.Nanoseconds()) / float64(max(s.steadyTokens, 1))
}
func (s scaleRun) readsPerToken() float64 {
	return float64(s.steadyReads) / float64(max(s.steadyTokens, 1))
}
func (s scaleRun) wholePerToken() float64 {
	return float64(s.cpu.Nanoseconds()) / float64(max(s.tokens, 1))
}
func (s scaleRun) perStream() float64 { return float64(s.rss) / float64(max(s.open, 1)) / 1024 }

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

// readSyscalls is how many read system calls this process has made
// (syscr in /proc/self/io): a token that costs more than one read (and one
// EAGAIN) shows here.
func readSyscalls() int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "syscr: "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// window samples CPU, read calls, RSS and a token count at scaleFrom and
// scaleTo after it is made; tokens may be nil (counted afterwards
// instead). With LLMBENCH_SCALE_PROFILE set it profiles the CPU between
// the two.
type window struct {
	from, to    time.Time
	cpu0, cpu1  time.Duration
	rd0, rd1    int64
	tok0, tok1  int64
	rss         int64
	done        chan struct{}
	tokens      *atomic.Int64
	sampledFrom atomic.Bool
}

func openWindow(b *testing.B, side string, tokens *atomic.Int64) *window {
	w := &window{done: make(chan struct{}), tokens: tokens}
	start := time.Now()
	go func() {
		defer close(w.done)
		time.Sleep(time.Until(start.Add(scaleFrom)))
		stop := profileWindow(b, side)
		w.from, w.cpu0, w.rd0, w.rss = time.Now(), cpuTime(), readSyscalls(), rssBytes()
		if tokens != nil {
			w.tok0 = tokens.Load()
		}
		w.sampledFrom.Store(true)
		time.Sleep(time.Until(start.Add(scaleTo)))
		w.to, w.cpu1, w.rd1 = time.Now(), cpuTime(), readSyscalls()
		if tokens != nil {
			w.tok1 = tokens.Load()
		}
		stop()
	}()
	return w
}

// profileWindow starts a CPU profile of side when LLMBENCH_SCALE_PROFILE
// asks for one, and returns what stops it.
func profileWindow(b *testing.B, side string) (stop func()) {
	prefix := os.Getenv(scaleProfileEnv)
	if prefix == "" {
		return func() {}
	}
	f, err := os.Create(prefix + "-" + side + ".prof")
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		b.Errorf("%s: %v", scaleProfileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}

// scaleClient runs the streams through the engine and the HTTP client.
func scaleClient(b *testing.B, url string, streams int, reqs []engine.Request) scaleRun {
	b.Helper()
	clock := transport.NewClock()
	cfg := transport.Config{URL: url, API: transport.Chat, Stream: true, Timeout: 10 * time.Minute, MaxConns: streams}
	if spec := os.Getenv(scaleSourcesEnv); spec != "" {
		addrs, err := transport.ParseSourceAddresses(strings.Split(spec, ","))
		if err != nil {
			b.Fatalf("%s: %v", scaleSourcesEnv, err)
		}
		cfg.SourceAddrs = addrs
	}
	c, err := transport.NewClient(cfg, clock)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	goruntime.GC()
	rss0, cpu0 := rssBytes(), cpuTime()
	w := openWindow(b, "client", nil)
	res := engine.Run(context.Background(), engine.Point{Load: plan.Load{Concurrency: streams}, Stop: plan.Stop{Requests: streams}}, c, clock, reqs)
	run := scaleRun{cpu: cpuTime() - cpu0}
	<-w.done
	run.rss, run.steadyCPU, run.steadyReads = w.rss-rss0, w.cpu1-w.cpu0, w.rd1-w.rd0
	from, to := w.from.UnixNano(), w.to.UnixNano() // the clock is wall time plus a monotonic offset
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
		if rec.Sent <= from && rec.Done >= to {
			run.open++
		}
		for _, at := range rec.Chunks {
			if at >= from && at < to {
				run.steadyTokens++
			}
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
	w := openWindow(b, "raw", &events)
	var wg sync.WaitGroup
	for range streams {
		wg.Go(func() {
			err := rawStream(addr, req, &events)
			switch {
			case err != nil:
				failed.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
			case w.sampledFrom.Load():
				open.Add(1) // still reading when the window opened
			}
		})
	}
	wg.Wait()
	run := scaleRun{cpu: cpuTime() - cpu0, open: int(open.Load()), failed: int(failed.Load())}
	<-w.done
	run.rss, run.steadyCPU, run.steadyReads = w.rss-rss0, w.cpu1-w.cpu0, w.rd1-w.rd0
	// Each stream carries scaleTokens content events (what the client
	// counts) and a few more (role, finish, usage, [DONE]); mid-stream
	// every event is a token.
	run.tokens, run.steadyTokens = scaleTokens*(streams-run.failed), int(w.tok1-w.tok0)
	if s, ok := firstErr.Load().(string); ok {
		run.firstErr = s
	}
	return run
}

// rawStream sends req on a new connection and counts the SSE event
// boundaries of the response into events until the server closes it; a
// stream that ends without [DONE] is an error.
func rawStream(addr string, req []byte, events *atomic.Int64) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.Write(req); err != nil {
		return err
	}
	buf := make([]byte, 4<<10)
	tail := make([]byte, 0, 128) // the last 64 bytes read, to tell a finished stream
	last := byte(0)
	for {
		k, err := conn.Read(buf)
		if k > 0 {
			n := bytes.Count(buf[:k], []byte("\n\n"))
			if last == '\n' && buf[0] == '\n' {
				n++
			}
			events.Add(int64(n))
			last = buf[k-1]
			tail = append(tail, buf[max(0, k-64):k]...) // never past its capacity: no allocation per read
			tail = tail[:copy(tail, tail[max(0, len(tail)-64):])]
		}
		if errors.Is(err, io.EOF) { // Connection: close ends the stream
			if !bytes.Contains(tail, []byte("[DONE]")) {
				return fmt.Errorf("stream ended without [DONE]: %q", tail)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}
