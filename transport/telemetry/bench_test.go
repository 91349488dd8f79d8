//go:build linux

package telemetry

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
)

// The benchmarks give the cost of one scrape of a realistic page (numbers
// in docs/performance.md, "Telemetry scraping cost"). Besides ns/op and
// allocations they report:
//
//   - cpu-ns/op: process CPU (getrusage RUSAGE_SELF, user + system) per
//     scrape, which includes everything the process did for it: GC
//     marking on other threads, net/http's connection goroutines, and in
//     the Scrape benchmarks the in-process server answering;
//   - thread-cpu-ns/op (Scrape only): the locked-thread CPU that a
//     Report's CPU field counts, body read and parse only.

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func readFixture(b *testing.B, name string) []byte {
	body, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// dcgmPage is the 8-GPU fixture cut to its first gpus GPUs.
func dcgmPage(b *testing.B, gpus int) []byte {
	var out bytes.Buffer
	for _, l := range strings.SplitAfter(string(readFixture(b, "dcgm-exporter-8xh100.txt")), "\n") {
		keep := strings.HasPrefix(l, "#")
		for g := 0; g < gpus && !keep; g++ {
			keep = strings.Contains(l, `{gpu="`+string(rune('0'+g))+`"`)
		}
		if keep {
			out.WriteString(l)
		}
	}
	return out.Bytes()
}

func benchParse(b *testing.B, body []byte) {
	p := newParser()
	benchParseWith(b, body, func() (int, error) {
		samples, err := p.parseBytes(body, "gpu1:9400", 1)
		return len(samples), err
	})
}

// benchParseExpfmt parses with the expfmt-based parser the direct reader
// replaced (reference_test.go), for before/after figures from one binary.
func benchParseExpfmt(b *testing.B, body []byte) {
	p := newRefParser()
	benchParseWith(b, body, func() (int, error) {
		samples, err := p.parse(bytes.NewReader(body), "gpu1:9400", 1)
		return len(samples), err
	})
}

func benchParseWith(b *testing.B, body []byte, parse func() (int, error)) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	cpu0 := processCPU()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		var err error
		if n, err = parse(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(n), "samples/op")
}

// simPage is the page the built-in simulator serves (one GPU's DCGM
// fields, vLLM's series and the Go process metrics).
func simPage(tb testing.TB) []byte {
	tb.Helper()
	srv, err := sim.Start(sim.DefaultConfig())
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = srv.Close() }()
	resp, err := http.Get(srv.URL() + "/metrics")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || len(body) == 0 {
		tb.Fatalf("the simulator's page: %v", err)
	}
	return body
}

// BenchmarkParseOldNew parses the simulator's page and a real vLLM
// 0.32's with the direct reader and with expfmt, the before and after of
// docs/performance.md's "Telemetry scraping cost".
func BenchmarkParseOldNew(b *testing.B) {
	pages := []struct {
		name string
		body []byte
	}{{"sim", simPage(b)}, {"vllm-0.32", readFixture(b, "vllm-0.32-after.txt")}}
	for _, page := range pages {
		b.Run(page.name+"/expfmt", func(b *testing.B) { benchParseExpfmt(b, page.body) })
		b.Run(page.name+"/direct", func(b *testing.B) { benchParse(b, page.body) })
	}
}

func BenchmarkParseDCGM(b *testing.B) {
	for _, gpus := range []int{1, 8} {
		b.Run("gpus="+string(rune('0'+gpus)), func(b *testing.B) { benchParse(b, dcgmPage(b, gpus)) })
	}
}

func BenchmarkParseVLLM(b *testing.B) { benchParse(b, readFixture(b, "vllm.txt")) }

// benchScrape scrapes url over loopback as a scraping goroutine does:
// one kept-alive connection, the reused buffer and parser.
func benchScrape(b *testing.B, url string) {
	s, err := New(Config{URLs: []string{url}, Clock: transport.NewClock(), Sink: func([]metrics.TelemetrySample) {}})
	if err != nil {
		b.Fatal(err)
	}
	w := s.newWorker(s.targets[0])
	b.ReportAllocs()
	var thread time.Duration
	cpu0 := processCPU()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		r := w.scrape(context.Background(), 5*time.Second)
		if r.err != nil {
			b.Fatal(r.err)
		}
		thread += r.cpu
		n = len(r.samples)
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(thread)/float64(b.N), "thread-cpu-ns/op")
	b.ReportMetric(float64(n), "samples/op")
}

func serveBody(b *testing.B, body []byte) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(body) }))
	b.Cleanup(srv.Close)
	return srv.URL + "/metrics"
}

// BenchmarkScrapeSim scrapes the simulator's page (one GPU's DCGM fields
// and six vLLM series), server included.
func BenchmarkScrapeSim(b *testing.B) {
	srv, err := sim.Start(sim.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	benchScrape(b, srv.URL()+"/metrics")
}

func BenchmarkScrapeDCGM(b *testing.B) {
	for _, gpus := range []int{1, 8} {
		b.Run("gpus="+string(rune('0'+gpus)), func(b *testing.B) { benchScrape(b, serveBody(b, dcgmPage(b, gpus))) })
	}
}

func BenchmarkScrapeVLLM(b *testing.B) { benchScrape(b, serveBody(b, readFixture(b, "vllm.txt"))) }
