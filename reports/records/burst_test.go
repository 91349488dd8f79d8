package records

import (
	"io"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// burstRecords are the records of the end of a many-stream run
// (bench/streams_rss.sh): n streamed requests of chunks tokens each, one
// token every 500 ms after a 1 s TTFT, all finishing within about a
// second; derive derives their metrics once, as the runtime's reduction
// does before handing them on.
func burstRecords(n, chunks int, derive bool) []metrics.Record {
	const start = int64(1_790_000_000_000_000_000)
	recs := make([]metrics.Record, n)
	for i := range recs {
		r := &recs[i]
		r.ID, r.Entry = int64(i), i%100
		r.Sent = start + int64(i)*100_000 // the connect burst: 10,000 in ~1 s
		r.InputTokens, r.OutputTokens = 16, chunks
		r.Chunks = make([]int64, chunks)
		t := r.Sent + 1_000_000_000 + int64(i%977)*1_000
		for k := range r.Chunks {
			r.Chunks[k] = t
			t += 500_000_000 + int64((i*31+k*17)%5_000)
		}
		r.Done = r.Chunks[chunks-1] + 50_000
		r.Usage = metrics.Usage{PromptTokens: 16, CompletionTokens: chunks, Reported: true}
		if derive {
			r.KeepMetrics()
		}
	}
	return recs
}

// writeBurst writes recs one Write each — the runtime's reduction hands
// every finished record to the sink alone (runtime/execute.go,
// reduction.write) — closes the file and returns the bytes of heap it
// allocated meanwhile. The collector is off while it runs, as it is in
// practice through the end of a many-stream run (the heap goal is twice
// what was live, far above what the burst adds), so every byte allocated
// is a byte the heap grows by: what the process's resident set pays.
// Pools start empty, as they do for the first row group of a point.
func writeBurst(tb testing.TB, recs []metrics.Record, opts Options) (allocated uint64) {
	tb.Helper()
	runtime.GC()
	runtime.GC() // twice: a sync.Pool keeps its victims through one
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w, err := NewWriterOptions(io.Discard, testMeta, opts)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range recs {
		if err := w.Write(recs[i]); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// BenchmarkWriterBurst writes the end of a 10,000-stream run (10,000
// records of 60 chunks, one Write each, the flush timer off: only the
// size and row bounds end row groups) and reports the heap it allocated
// (alloc-MB/burst), which is what the burst adds to the process's
// resident set (docs/performance.md, "Memory per open stream").
//
//	go test -run '^$' -bench WriterBurst -benchmem ./reports/records/
func BenchmarkWriterBurst(b *testing.B) {
	recs := burstRecords(10_000, 60, true)
	var allocated uint64
	for b.Loop() {
		allocated = writeBurst(b, recs, Options{FlushInterval: -1})
	}
	b.ReportMetric(float64(allocated)/(1<<20), "alloc-MB/burst")
}

// BenchmarkWriterRecord is the writer's CPU per record in a long run:
// one open writer, records of 60 chunks written one Write each, row
// groups flushed as they fill (the flush timer off, so the figure does not
// depend on the benchmark's speed).
//
//	go test -run '^$' -bench WriterRecord -benchmem ./reports/records/
func BenchmarkWriterRecord(b *testing.B) {
	recs := burstRecords(10_000, 60, true)
	w, err := NewWriterOptions(io.Discard, testMeta, Options{FlushInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		if err := w.Write(recs[i%len(recs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// ptr returns a pointer to a copy of v, for rows built by hand (the
// writer takes its values from a rowBatch's arenas).
func ptr[T any](v T) *T { return &v }
