package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/transport/sim"
)

// floorEnv makes this test binary the floor reader of
// BenchmarkWholeProcess, in a process of its own: "ADDR REQUESTS
// CONCURRENCY TOKENS".
const floorEnv = "LLMBENCH_BENCH_FLOOR"

// binEnv names a built llmbench for BenchmarkWholeProcess; unset, the
// benchmark builds one from this checkout.
const binEnv = "LLMBENCH_BIN"

// roundsEnv sets BenchmarkWholeProcess's interleaved rounds (default 3).
const roundsEnv = "LLMBENCH_WHOLE_ROUNDS"

// baseEnv names a second built llmbench (another commit's) that
// BenchmarkWholeProcess runs in every round beside LLMBENCH_BIN, first in
// one round and second in the next, so two builds are compared in
// interleaved rounds on the same machine state: it then reports the
// base's CPU per token and client/base as well.
const baseEnv = "LLMBENCH_BASE_BIN"

// BenchmarkWholeProcess measures what users run: `llmbench profile` as a
// process of its own — engine, client, the records sink, the run's
// reduction and every artifact (records.parquet, profile_export.json, the
// GenAI-Perf JSON/CSV, plots off as profile has them) — against the raw
// reader floor (rawStream, in a process of its own too), both streaming
// the same answers from one simulator process. Each side's CPU is its
// whole process's user+system time (rusage of the child, as /usr/bin/time
// gives it), per streamed content token. Rounds alternate client and
// floor, so a busy machine weighs on both alike; the ratio is reported
// per round and as the median, with the load average beside each round:
//
//	go test -run '^$' -bench WholeProcess -benchtime 1x -timeout 30m ./bench/
//
// With LLMBENCH_BASE_BIN set, every round also runs that build, so a change
// is measured as client/base in the same interleaved rounds (issue 30,
// item 2: docs/performance.md quotes it as the headline).
func BenchmarkWholeProcess(b *testing.B) {
	bin := llmbenchBinary(b)
	rounds := 3
	if n, err := strconv.Atoi(os.Getenv(roundsEnv)); err == nil && n > 0 {
		rounds = n
	}
	const tokens, concurrency = 200, 64
	cfg := sim.DefaultConfig()
	cfg.TTFT, cfg.ITL, cfg.ITLPerSeq, cfg.PrefillPerToken, cfg.Jitter, cfg.MaxBatch = time.Millisecond, 2*time.Millisecond, 0, 0, 0, 1024
	addr := strings.TrimPrefix(startSim(b, cfg), "http://")
	base := os.Getenv(baseEnv)
	for _, requests := range []int{600, 2400} {
		b.Run(fmt.Sprintf("requests=%d", requests), func(b *testing.B) {
			for range b.N {
				var ratios, clients, floors, bases, vsBase []float64
				perToken := float64(requests * tokens)
				for round := range rounds {
					load := loadAverage()
					var baseCPU time.Duration
					if base != "" && round%2 == 1 {
						baseCPU = profileCPU(b, base, addr, requests, concurrency, tokens)
					}
					client := profileCPU(b, bin, addr, requests, concurrency, tokens)
					if base != "" && round%2 == 0 {
						baseCPU = profileCPU(b, base, addr, requests, concurrency, tokens)
					}
					floor := floorCPU(b, addr, requests, concurrency, tokens)
					c, f := float64(client.Nanoseconds())/perToken, float64(floor.Nanoseconds())/perToken
					clients, floors, ratios = append(clients, c), append(floors, f), append(ratios, c/f)
					versus := ""
					if base != "" {
						bc := float64(baseCPU.Nanoseconds()) / perToken
						bases, vsBase = append(bases, bc), append(vsBase, c/bc)
						versus = fmt.Sprintf("; base %.2f µs/token, client/base %.3f", bc/1e3, c/bc)
					}
					b.Logf("round %d (load average %s → %s): llmbench profile %.2f µs/token, floor %.2f µs/token, ratio %.2f×%s",
						round+1, load, loadAverage(), c/1e3, f/1e3, c/f, versus)
				}
				b.ReportMetric(median(clients), "client-cpu-ns/token")
				b.ReportMetric(median(floors), "floor-cpu-ns/token")
				b.ReportMetric(median(ratios), "client/floor")
				if base != "" {
					b.ReportMetric(median(bases), "base-cpu-ns/token")
					b.ReportMetric(median(vsBase), "client/base")
				}
			}
		})
	}
}

// llmbenchBinary is LLMBENCH_BIN, or llmbench built from this checkout.
func llmbenchBinary(b *testing.B) string {
	b.Helper()
	if bin := os.Getenv(binEnv); bin != "" {
		return bin
	}
	bin := filepath.Join(b.TempDir(), "llmbench")
	build := exec.Command("go", "build", "-o", bin, "../cmd/llmbench")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// profileCPU runs one `llmbench profile` point and returns the process's
// CPU time, after checking it wrote its artifacts.
func profileCPU(b *testing.B, bin, addr string, requests, concurrency, tokens int) time.Duration {
	b.Helper()
	dir := b.TempDir()
	cmd := exec.Command(bin, "profile", "-u", addr, "-m", "bench", "--streaming",
		"--concurrency", strconv.Itoa(concurrency), "--request-count", strconv.Itoa(requests),
		"--output-tokens-mean", strconv.Itoa(tokens), "--output-tokens-stddev", "0",
		"--synthetic-input-tokens-mean", "32", "--synthetic-input-tokens-stddev", "0",
		"--artifact-dir", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("llmbench profile: %v\n%s", err, out)
	}
	for _, name := range []string{"profile_export.json", "records.parquet", "profile_export_genai_perf.json"} {
		if found, _ := filepath.Glob(filepath.Join(dir, "*", name)); len(found) != 1 {
			b.Fatalf("llmbench profile wrote no %s in %s", name, dir)
		}
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// floorCPU runs the floor reader over the same load in a child process
// and returns its CPU time.
func floorCPU(b *testing.B, addr string, requests, concurrency, tokens int) time.Duration {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestFloorReader$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d %d", floorEnv, addr, requests, concurrency, tokens))
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "PASS") {
		b.Fatalf("floor reader: %v\n%s", err, out)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// TestFloorReader is the floor side of BenchmarkWholeProcess when run as
// its child (floorEnv set; skipped otherwise): concurrency readers share
// the requests, each sent on a new connection and read with rawStream
// (conn.Read, event boundaries counted, [DONE] checked), asking for
// tokens tokens as llmbench's synthetic requests do.
func TestFloorReader(t *testing.T) {
	spec := os.Getenv(floorEnv)
	if spec == "" {
		t.Skip("the floor reader of BenchmarkWholeProcess (run as its child)")
	}
	var addr string
	var requests, concurrency, tokens int
	if _, err := fmt.Sscanf(spec, "%s %d %d %d", &addr, &requests, &concurrency, &tokens); err != nil {
		t.Fatalf("%s=%q: %v", floorEnv, spec, err)
	}
	body := fmt.Sprintf(`{"model":"bench","messages":[{"role":"user","content":"%s"}],"stream":true,"max_tokens":%d}`,
		strings.TrimSpace(strings.Repeat("word ", 32)), tokens)
	req := []byte("POST /v1/chat/completions HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n" +
		"Connection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	var next, events atomic.Int64
	var wg sync.WaitGroup
	for range concurrency {
		wg.Go(func() {
			for next.Add(1) <= int64(requests) {
				if err := rawStream(addr, req, &events); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := events.Load(); got < int64(requests*tokens) {
		t.Fatalf("read %d events, want at least %d (%d requests × %d tokens)", got, requests*tokens, requests, tokens)
	}
}

// loadAverage is the 1-minute load average.
func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
