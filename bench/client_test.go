// Package bench holds llmbench's client performance benchmarks. The
// simulator runs in a child process (this test binary re-executed), so the
// CPU time and memory measured here are the client's alone: the engine, the
// fasthttp transport, SSE parsing and record keeping.
//
//	go test -run '^$' -bench . -benchtime 1x ./bench/
//
// Numbers are recorded in docs/performance.md.
package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	goruntime "runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
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

const simEnv = "LLMBENCH_BENCH_SIM"

// TestMain doubles as the simulator process: with simEnv set to a JSON
// sim.Config it serves until its stdin closes.
func TestMain(m *testing.M) {
	if spec := os.Getenv(simEnv); spec != "" {
		serveSim(spec)
		return
	}
	os.Exit(m.Run())
}

func serveSim(spec string) {
	cfg := sim.DefaultConfig()
	if err := json.Unmarshal([]byte(spec), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	srv, err := sim.Start(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(srv.URL())
	if srv.GRPCURL() != "" {
		fmt.Println(srv.GRPCURL())
	}
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // parent closes stdin to stop us
	_ = srv.Close()
}

// startSim runs a simulator child process and returns its URL.
func startSim(b testing.TB, cfg sim.Config) string {
	b.Helper()
	return startSimURLs(b, cfg)[0]
}

// startSimURLs runs a simulator child process and returns its URLs: the
// HTTP one, then the gRPC one when cfg.GRPCAddr is set.
func startSimURLs(b testing.TB, cfg sim.Config) []string {
	b.Helper()
	spec, _ := json.Marshal(cfg)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), simEnv+"="+string(spec))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	out := bufio.NewReader(stdout)
	var urls []string
	for range 1 + min(len(cfg.GRPCAddr), 1) {
		line, err := out.ReadString('\n')
		if err != nil {
			b.Fatalf("simulator did not start: %v", err)
		}
		urls = append(urls, strings.TrimSpace(line))
	}
	return urls
}

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type measured struct {
	res     *engine.Result
	cpu     time.Duration
	wall    time.Duration
	tokens  int
	summary metrics.Summary
}

// measure runs one point through the real engine and client.
func measure(b *testing.B, url string, p engine.Point, inputWords, outputTokens int) measured {
	return measureAPI(b, transport.Chat, url, p, inputWords, outputTokens)
}

// sendClient is the HTTP or the triton client.
type sendClient interface {
	engine.Sender
	Close()
}

// measureAPI is measure through api's client (chat over HTTP, or triton
// over gRPC).
func measureAPI(b *testing.B, api transport.API, url string, p engine.Point, inputWords, outputTokens int) measured {
	b.Helper()
	clock := transport.NewClock()
	conns := max(p.Load.Concurrency, p.Load.MaxConcurrency, 4096)
	cfg := transport.Config{URL: url, API: api, Stream: true, Timeout: 5 * time.Minute, MaxConns: conns}
	var client sendClient
	var err error
	if api == transport.Triton {
		cfg.MaxConns = max(p.Load.Concurrency, p.Load.MaxConcurrency, 1)
		client, err = transport.NewTritonClient(cfg, clock)
	} else {
		client, err = transport.NewClient(cfg, clock)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	ep := plan.Endpoint{API: api, Stream: true, Model: "bench"}
	entries, _ := dataset.Synthetic{Input: dataset.Fixed{N: float64(inputWords)}, Output: dataset.Fixed{N: float64(outputTokens)}, Entries: 100}.Build(0)
	reqs := runtime.Requests(ep, entries)
	goruntime.GC()
	cpu0, wall0 := cpuTime(), time.Now()
	res := engine.Run(context.Background(), p, client, clock, reqs)
	m := measured{res: res, cpu: cpuTime() - cpu0, wall: time.Since(wall0)}
	for i := range res.Records {
		if res.Records[i].Err != nil {
			b.Fatalf("request failed: %+v", res.Records[i].Err)
		}
		m.tokens += len(res.Records[i].Chunks)
	}
	m.summary = metrics.Summarize(res.Records, metrics.Options{})
	return m
}

// BenchmarkStreamedToken measures client CPU per streamed token: long
// responses at a fast token rate, so per-token work dominates.
func BenchmarkStreamedToken(b *testing.B) {
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL, cfg.ITLPerSeq, cfg.PrefillPerToken, cfg.Jitter, cfg.MaxBatch = time.Millisecond, 2*time.Millisecond, 0, 0, 0, 1024
	url := startSim(b, cfg)
	b.ResetTimer()
	var cpu time.Duration
	var tokens int
	for range b.N {
		m := measure(b, url, engine.Point{Load: plan.Load{Concurrency: 256}, Stop: plan.Stop{Requests: 1024}}, 32, 512)
		cpu += m.cpu
		tokens += m.tokens
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(tokens), "client-cpu-ns/token")
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkStreamedTokenFloor is the same load read by the thinnest
// possible client: raw sockets, no HTTP parsing, no SSE, no JSON, no
// records. What remains is the kernel's cost of delivering one network
// read per token, a floor no Go client can go below; the difference to
// BenchmarkStreamedToken is llmbench's own per-token work.
func BenchmarkStreamedTokenFloor(b *testing.B) {
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL, cfg.ITLPerSeq, cfg.PrefillPerToken, cfg.Jitter, cfg.MaxBatch = time.Millisecond, 2*time.Millisecond, 0, 0, 0, 1024
	url := startSim(b, cfg)
	addr := strings.TrimPrefix(url, "http://")
	body := `{"model":"bench","messages":[{"role":"user","content":"hello"}],"stream":true,"max_tokens":512}`
	req := "POST /v1/chat/completions HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
		"Connection: close\r\nContent-Length: " + fmt.Sprint(len(body)) + "\r\n\r\n" + body
	b.ResetTimer()
	var cpu time.Duration
	var tokens int
	for range b.N {
		cpu0 := cpuTime()
		var wg sync.WaitGroup
		for range 256 {
			wg.Go(func() {
				buf := make([]byte, 16<<10)
				for range 4 { // 1024 requests of 512 tokens, as above
					conn, err := net.Dial("tcp", addr)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = conn.Write([]byte(req))
					for {
						if _, err := conn.Read(buf); err != nil {
							break
						}
					}
					conn.Close()
				}
			})
		}
		wg.Wait()
		cpu += cpuTime() - cpu0
		tokens += 1024 * 512
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(tokens), "client-cpu-ns/token")
}

// BenchmarkRequest measures client CPU per request: one-token responses,
// so request overhead (connection reuse, headers, record) dominates.
func BenchmarkRequest(b *testing.B) {
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL, cfg.ITLPerSeq, cfg.PrefillPerToken, cfg.Jitter, cfg.MaxBatch = 0, 0, 0, 0, 0, 1024
	url := startSim(b, cfg)
	b.ResetTimer()
	var cpu time.Duration
	var reqs int
	for range b.N {
		m := measure(b, url, engine.Point{Load: plan.Load{Concurrency: 32}, Stop: plan.Stop{Requests: 20000}}, 32, 1)
		cpu += m.cpu
		reqs += len(m.res.Records)
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(reqs), "client-cpu-ns/request")
	b.ReportMetric(float64(reqs)/b.Elapsed().Seconds(), "requests/s")
}

// BenchmarkOpenStreams measures client memory per open stream with 10,000
// streams open at once: slow tokens keep them all open while the heap and
// goroutine stacks are sampled. It reports the two apart, and with
// LLMBENCH_OPEN_STREAMS_HEAP=FILE writes a heap profile (in-use space) at
// the sampling instant, which says what each stream holds:
//
//	LLMBENCH_OPEN_STREAMS_HEAP=/tmp/heap.prof go test -run '^$' -bench OpenStreams -benchtime 1x ./bench/
//	go tool pprof -sample_index=inuse_space -top /tmp/heap.prof
func BenchmarkOpenStreams(b *testing.B) {
	const streams = 10000
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL, cfg.ITLPerSeq, cfg.PrefillPerToken, cfg.Jitter, cfg.MaxBatch = 100*time.Millisecond, time.Second, 0, 0, 0, streams
	url := startSim(b, cfg)
	for range b.N {
		goruntime.GC()
		before := memStats()
		type sample struct {
			at int64
			ms goruntime.MemStats
		}
		peak := make(chan sample, 1)
		go func() { // sample while the streams are mid-response
			time.Sleep(4 * time.Second)
			goruntime.GC()
			s := sample{at: time.Now().UnixNano(), ms: memStats()}
			writeHeapProfile(b, os.Getenv("LLMBENCH_OPEN_STREAMS_HEAP"))
			peak <- s
		}()
		m := measure(b, url, engine.Point{Load: plan.Load{Concurrency: streams}, Stop: plan.Stop{Requests: streams}}, 16, 8)
		s := <-peak
		open := 0 // streams open at the sampling instant
		for _, rec := range m.res.Records {
			if rec.Sent <= s.at && rec.Done >= s.at {
				open++
			}
		}
		perStream := func(after, before uint64) float64 { return (float64(after) - float64(before)) / float64(open) / 1024 }
		b.ReportMetric(perStream(s.ms.HeapInuse+s.ms.StackInuse, before.HeapInuse+before.StackInuse), "KiB/open-stream")
		b.ReportMetric(perStream(s.ms.StackInuse, before.StackInuse), "stack-KiB/open-stream")
		b.ReportMetric(perStream(s.ms.HeapInuse, before.HeapInuse), "heap-KiB/open-stream")
		b.ReportMetric(float64(open), "open-streams")
	}
}

func memStats() goruntime.MemStats {
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return ms
}

// writeHeapProfile writes the heap profile to path; "" writes none.
func writeHeapProfile(b *testing.B, path string) {
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err == nil {
		err = errors.Join(pprof.WriteHeapProfile(f), f.Close())
	}
	if err != nil {
		b.Errorf("heap profile: %v", err)
	}
}

func memInUse() uint64 {
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return ms.HeapInuse + ms.StackInuse
}

// BenchmarkPoissonRate checks the open loop keeps a 2,000 req/s Poisson
// schedule: achieved rate versus target, and schedule lag.
func BenchmarkPoissonRate(b *testing.B) {
	const target = 2000.0
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL, cfg.ITLPerSeq, cfg.PrefillPerToken, cfg.Jitter, cfg.MaxBatch = 5*time.Millisecond, time.Millisecond, 0, 0, 0, 4096
	url := startSim(b, cfg)
	for range b.N {
		p := engine.Point{Load: plan.Load{Rate: target, Arrival: plan.Poisson}, Stop: plan.Stop{Requests: 20000}, Seed: 1}
		m := measure(b, url, p, 16, 4)
		s := m.summary
		recs := m.res.Records
		// A finite Poisson sample's own rate differs from the target by
		// ~1/sqrt(n); the client is judged against the schedule it drew.
		first, last := recs[0], recs[len(recs)-1]
		planned := float64(len(recs)-1) / (float64(last.Scheduled-first.Scheduled) / 1e9)
		b.ReportMetric(s.AchievedRequestRate, "achieved-req/s")
		b.ReportMetric(planned, "planned-req/s")
		b.ReportMetric(100*(s.AchievedRequestRate-planned)/planned, "achieved-vs-planned-%")
		b.ReportMetric(s.ScheduleLag.P50/1e3, "lag-p50-µs")
		b.ReportMetric(s.ScheduleLag.P99/1e3, "lag-p99-µs")
	}
}
