//go:build linux

package telemetry

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// benchRetained parses body scrapes times, keeping every scrape's batch
// as a point's telemetry does until it ends, and reports the live heap
// that holds them per sample: the memory a long point costs per scrape.
func benchRetained(b *testing.B, body []byte) {
	const scrapes = 2000
	for b.Loop() {
		p := newParser()
		kept := make([][]metrics.TelemetrySample, 0, scrapes)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		n := 0
		for i := range scrapes {
			s, err := p.parse(bytes.NewReader(body), "gpu1:9400", int64(i))
			if err != nil {
				b.Fatal(err)
			}
			kept = append(kept, s)
			n += len(s)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "retained-B/sample")
		b.ReportMetric(float64(n/scrapes), "samples/scrape")
		runtime.KeepAlive(kept)
	}
}

func BenchmarkRetainedDCGM8(b *testing.B) { benchRetained(b, dcgmPage(b, 8)) }
func BenchmarkRetainedVLLM(b *testing.B)  { benchRetained(b, readFixture(b, "vllm.txt")) }

// BenchmarkReduceLongPoint reduces and plots what a point kept from 2,000
// scrapes of an 8-GPU DCGM exporter and vLLM (11 minutes at the default
// interval, 1.19M samples), as the end of a point does.
func BenchmarkReduceLongPoint(b *testing.B) {
	dcgm, vllm := dcgmPage(b, 8), readFixture(b, "vllm.txt")
	pd, pv := newParser(), newParser()
	var kept []metrics.TelemetrySample
	for i := range int64(2000) {
		for _, page := range []struct {
			p      *parser
			body   []byte
			source string
		}{{pd, dcgm, "gpu1:9400"}, {pv, vllm, "gpu1:8000"}} {
			s, err := page.p.parse(bytes.NewReader(page.body), page.source, i*DefaultInterval.Nanoseconds())
			if err != nil {
				b.Fatal(err)
			}
			kept = append(kept, s...)
		}
	}
	w := metrics.TelemetryWindow{Start: 0, End: 2000 * DefaultInterval.Nanoseconds(), OutputTokens: 1e6}
	b.Run("reduce", func(b *testing.B) {
		for b.Loop() {
			metrics.ReduceTelemetry(kept, w)
		}
	})
	b.Run("timeline", func(b *testing.B) {
		for b.Loop() {
			metrics.TimelineOf(kept)
		}
	})
}
