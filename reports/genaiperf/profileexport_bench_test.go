package genaiperf

import (
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// benchTokens are the chunk texts of the export benchmark: mostly short
// ASCII words as servers stream them, with the characters that need
// escaping (quotes, backslashes, newlines, a tab) and multi-byte UTF-8
// mixed in at realistic rates.
var benchTokens = []string{" the", " quick", " brown", " fox", ",", " jumps", " over", " a", " lazy",
	" dog", ".", "\n", " \"quoted\"", " café", " 東京", " x\\y", "\t", " 42", " tokens", " per"}

// benchExportRecords are n completed streaming requests of tokens chunks
// each, with usage reported, as a run hands them to the export.
func benchExportRecords(n, tokens int) ([]metrics.Record, [][]byte) {
	payload := []byte(`{"messages":[{"role":"user","content":"` + strings.Repeat("Tell me a story. ", 30) +
		`"}],"model":"tiny","stream":true,"max_tokens":200}`)
	recs := make([]metrics.Record, n)
	for i := range recs {
		var out strings.Builder
		rec := metrics.Record{ID: int64(i), Sent: int64(i) * 1e6, Chunks: make([]int64, tokens), ChunkEnds: make([]int32, tokens),
			Usage: metrics.Usage{PromptTokens: 120, CompletionTokens: tokens, Reported: true}}
		for k := range tokens {
			out.WriteString(benchTokens[(i+k*7)%len(benchTokens)])
			rec.Chunks[k], rec.ChunkEnds[k] = rec.Sent+int64(k+1)*25_000_000, int32(out.Len())
		}
		rec.Output, rec.Done = out.String(), rec.Chunks[tokens-1]+1000
		recs[i] = rec
	}
	return recs, [][]byte{payload}
}

// BenchmarkProfileExport writes the export of N streaming chat requests
// of 200 tokens each, as the records sink does during a run (one Write
// per record), and reports the cost per token: the figure issue 30's
// goal (≤ 0.3 µs per token) and docs/performance.md quote.
func BenchmarkProfileExport(b *testing.B) {
	const tokens = 200
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("requests=%d", n), func(b *testing.B) {
			recs, payloads := benchExportRecords(n, tokens)
			run := DefaultRun("tiny")
			run.Streaming = true
			var written countingWriter
			b.ReportAllocs()
			cpu := processCPU()
			b.ResetTimer()
			for range b.N {
				p := NewProfileExportWriter(&written, "", &run, payloads)
				for i := range recs {
					if err := p.Write(recs[i]); err != nil {
						b.Fatal(err)
					}
				}
				if err := p.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			perToken := float64(b.N * n * tokens)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/perToken, "ns/token")
			b.ReportMetric(float64(processCPU()-cpu)/perToken, "cpu-ns/token")
			b.ReportMetric(float64(written.n)/perToken, "written-B/token")
		})
	}
}

// processCPU is the process's user+system CPU time in nanoseconds: on a
// busy machine a steadier measure of the work than wall time, which
// includes the time other processes held the cores.
func processCPU() int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return u.Utime.Nano() + u.Stime.Nano()
}

// countingWriter counts the bytes written and keeps none.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countingWriter)(nil)
