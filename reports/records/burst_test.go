package records

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// burstRecords are the records of the end of a many-stream run
// (bench/streams_rss.sh): n streamed requests of chunks tokens each, one
// token every 500 ms after a 1 s TTFT, all finishing within about a
// second.
func burstRecords(n, chunks int) []metrics.Record {
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
	writeOneByOne(tb, io.Discard, recs, opts)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestBurstMemoryIsBounded: at the end of a many-stream run, when
// thousands of records arrive within a second and no collection runs, the
// writer's heap is bounded by a row group, not by the burst: 10,000
// records of 60 chunks allocated 34 MB (2,000: 13.7 MB) when each record
// built its row afresh, the encoder came from a pool and row groups were
// cut at 8 MiB of values; with the rows' arenas, one encoder and 2 MiB row
// groups, 7.7 MB (6.1 MB).
func TestBurstMemoryIsBounded(t *testing.T) {
	small := writeBurst(t, burstRecords(2_000, 60), Options{FlushInterval: -1})
	large := writeBurst(t, burstRecords(10_000, 60), Options{FlushInterval: -1})
	t.Logf("allocated: %.1f MB for 2,000 records, %.1f MB for 10,000", float64(small)/(1<<20), float64(large)/(1<<20))
	if large > 16<<20 {
		t.Errorf("10,000 records allocated %.1f MB, want at most 16", float64(large)/(1<<20))
	}
	if large > small+4<<20 {
		t.Errorf("10,000 records allocated %.1f MB more than 2,000, want at most 4: the burst, not a row group, sets the writer's memory",
			float64(large-small)/(1<<20))
	}
}

// BenchmarkWriterBurst writes the end of a many-stream run (2,000 or
// 10,000 records of 60 chunks, one Write each, the flush timer off: only
// the size and row bounds end row groups) and reports the heap it
// allocated (alloc-MB/burst), which is what the burst adds to the
// process's resident set, and the file's size (file-KB), for the writer
// as configured and for other row group and page sizes
// (docs/performance.md, "Memory per open stream").
//
//	go test -run '^$' -bench WriterBurst ./reports/records/
func BenchmarkWriterBurst(b *testing.B) {
	sizes := []struct {
		name string
		opts Options
	}{
		{"default", Options{}},
		{"flush=8MiB,page=256KiB", Options{FlushBytes: 8 << 20, pageBufferSize: 256 << 10}},
		{"flush=2MiB,page=256KiB", Options{FlushBytes: 2 << 20, pageBufferSize: 256 << 10}},
		{"flush=8MiB,page=64KiB", Options{FlushBytes: 8 << 20, pageBufferSize: 64 << 10}},
		{"flush=1MiB,page=32KiB", Options{FlushBytes: 1 << 20, pageBufferSize: 32 << 10}},
	}
	for _, n := range []int{2_000, 10_000} {
		recs := burstRecords(n, 60)
		for _, size := range sizes {
			opts := size.opts
			opts.FlushInterval = -1
			b.Run(fmt.Sprintf("records=%d,%s", n, size.name), func(b *testing.B) {
				var allocated uint64
				for b.Loop() {
					allocated = writeBurst(b, recs, opts)
				}
				b.ReportMetric(float64(allocated)/(1<<20), "alloc-MB/burst")
				b.ReportMetric(float64(fileSize(b, recs, opts))/1e3, "file-KB")
			})
		}
	}
}

// fileSize is the size of the file recs make.
func fileSize(tb testing.TB, recs []metrics.Record, opts Options) int {
	var buf bytes.Buffer
	writeOneByOne(tb, &buf, recs, opts)
	return buf.Len()
}

// writeOneByOne writes recs to out one Write each, as the run's reduction
// hands them over, and closes the file.
func writeOneByOne(tb testing.TB, out io.Writer, recs []metrics.Record, opts Options) {
	tb.Helper()
	w, err := NewWriterOptions(out, testMeta, opts)
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
}

// BenchmarkWriterRecord is the writer's CPU per record in a long run:
// one open writer, records of 60 chunks written one Write each, row
// groups flushed as they fill (the flush timer off, so the figure does not
// depend on the benchmark's speed).
//
//	go test -run '^$' -bench WriterRecord -benchmem ./reports/records/
func BenchmarkWriterRecord(b *testing.B) {
	recs := burstRecords(10_000, 60)
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
