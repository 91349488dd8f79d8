package records

import (
	"math"

	"github.com/llmbench/llmbench/metrics"
)

// rowBatch is the rows of one parquet-go Write and the values they point
// to — the chunk lists and the optional columns' values — kept from one
// Write to the next. parquet-go copies what a row holds into its column
// buffers, so once its Write returns every value here can be overwritten.
// Built afresh, each row of 60 chunks made 16 small allocations and two
// lists (~0.8 KB, 7.8 MB of a 10,000-record burst), which at the end of a
// many-stream run, when no collection runs, was heap the process grew by.
type rowBatch struct {
	rows  []row
	i64   arena[int64]
	i32   arena[int32]
	f64   arena[float64]
	str   arena[string]
	bools arena[bool]
	bytes int // what the arenas hold, for batchBytes
}

// A batch ends at batchRows rows or once its arenas hold batchBytes, so
// that a caller handing over many records at once (a merge) does not make
// the arenas, which the writer keeps, as large as its batch.
const (
	batchRows  = 256
	batchBytes = 256 << 10
)

// full reports whether the batch is as large as one Write takes.
func (b *rowBatch) full() bool { return len(b.rows) >= batchRows || b.bytes >= batchBytes }

// reset empties the batch for the next Write, dropping its references to
// the records' strings.
func (b *rowBatch) reset() {
	clear(b.rows)
	b.rows = b.rows[:0]
	b.i64.reset()
	b.i32.reset()
	b.f64.reset()
	b.str.reset()
	b.bools.reset()
	b.bytes = 0
}

// arena hands out values and slices of T from one array reused across
// batches. When it is full it starts a larger array; the rows already
// pointing into the old one keep it until the batch is written.
type arena[T any] struct{ vals []T }

// take returns n zero values to fill.
func (a *arena[T]) take(n int) []T {
	l := len(a.vals)
	if l+n > cap(a.vals) {
		a.vals = make([]T, 0, max(2*cap(a.vals), n, 64))
		l = 0
	}
	a.vals = a.vals[:l+n]
	return a.vals[l : l+n : l+n]
}

// ptr returns a pointer to a copy of v.
func (a *arena[T]) ptr(v T) *T {
	s := a.take(1)
	s[0] = v
	return &s[0]
}

func (a *arena[T]) reset() {
	clear(a.vals)
	a.vals = a.vals[:0]
}

// add appends the row of r, as the file stores it, to the batch.
func (b *rowBatch) add(meta *Meta, shard int32, r *metrics.Record) *row {
	b.rows = append(b.rows, row{})
	out := &b.rows[len(b.rows)-1]
	m := r.Metrics()
	*out = row{
		Scenario:         meta.Scenario,
		Experiment:       meta.Experiment,
		Point:            meta.Point,
		Repeat:           int32(meta.Repeat),
		Shard:            shard,
		RequestID:        r.ID,
		DatasetEntry:     int64(r.Entry),
		DatasetComponent: text(r.Component),
		ScheduledNs:      r.Scheduled,
		SendTime:         r.Sent,
		ISLTokens:        clamp32(int64(r.InputTokens)),
		OSLTokens:        clamp32(int64(r.OutputTokens)),
		ReasoningChunks:  clamp32(int64(r.ReasoningChunks)),
		Retries:          b.i32.ptr(clamp32(int64(r.Retries))),
		Warmup:           r.Warmup,
		Replica:          b.i32.ptr(clamp32(int64(r.Replica))),
		ImageCount:       clamp32(int64(r.Media.Images)),
		ImageBytes:       int64(r.Media.ImageBytes),
		AudioCount:       clamp32(int64(r.Media.Audio)),
		AudioBytes:       int64(r.Media.AudioBytes),
		AudioSeconds:     r.Media.AudioSeconds,
	}
	if r.Done != 0 {
		out.DoneTime = b.i64.ptr(r.Done)
	}
	if r.Turn > 0 {
		out.SessionID = b.str.ptr(r.Session)
		out.Turn = b.i32.ptr(clamp32(int64(r.Turn)))
		out.LastTurn = b.bools.ptr(r.LastTurn)
	}
	if c := r.Chunks; len(c) > 0 {
		out.FirstChunkTime = b.i64.ptr(c[0])
		out.LastChunkTime = b.i64.ptr(c[len(c)-1])
		out.ChunkOffsetsNs = b.i64.take(len(c))
		for i, t := range c {
			out.ChunkOffsetsNs[i] = t - r.Sent
		}
	}
	if m.HasContent {
		out.TTFTNs = b.i64.ptr(m.TTFT)
		out.RequestLatencyNs = b.i64.ptr(m.Latency)
	}
	if m.HasTTST {
		out.TTSTNs = b.i64.ptr(m.TTST)
	}
	if m.HasITL {
		out.ITLNs = b.i64.ptr(m.ITL)
	}
	if m.HasTTFO {
		out.TTFONs = b.i64.ptr(m.TTFO)
	}
	if m.HasTPSUser {
		out.TPSPerUser = b.f64.ptr(m.TPSUser)
	}
	if n := r.GapCount(); n > 0 {
		out.ChunkGapsUs = b.i32.take(n)[:0]
		for g := range r.ChunkGaps() {
			out.ChunkGapsUs = append(out.ChunkGapsUs, clamp32(int64(math.Round(float64(g)/1e3))))
		}
	}
	if r.Usage.Reported {
		out.UsagePromptTokens = b.i32.ptr(clamp32(int64(r.Usage.PromptTokens)))
		out.UsageCompletionTokens = b.i32.ptr(clamp32(int64(r.Usage.CompletionTokens)))
		if r.Usage.CachedReported {
			out.CachedTokens = b.i32.ptr(clamp32(int64(r.Usage.CachedTokens)))
		}
	}
	if e := r.Err; e != nil {
		out.ErrorClass = b.str.ptr(text(string(e.Class)))
		out.ErrorStatus = b.i32.ptr(clamp32(int64(e.Status)))
		out.ErrorMessage = b.str.ptr(text(e.Message)) // a server's bytes: Parquet strings are UTF-8
	}
	b.bytes += 8*len(out.ChunkOffsetsNs) + 4*len(out.ChunkGapsUs)
	return out
}

func clamp32(v int64) int32 {
	return int32(max(math.MinInt32, min(math.MaxInt32, v)))
}
