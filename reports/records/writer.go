package records

import (
	"bufio"
	"errors"
	"io"
	"math"

	"github.com/llmbench/llmbench/metrics"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// DefaultRowGroupRows is the row group size used when Options.RowGroupRows
// is 0: a crash loses at most this many requests, and the writer holds at
// most this many rows in memory.
const DefaultRowGroupRows = 64 * 1024

// Options tune a Writer; the zero value is the default.
type Options struct {
	// RowGroupRows is the number of rows per row group (0:
	// DefaultRowGroupRows). A row group is written out as soon as it is full.
	RowGroupRows int
}

// Writer streams records to a records.parquet file. It is not safe for
// concurrent use.
type Writer struct {
	pw      *parquet.GenericWriter[row]
	out     *bufio.Writer // flushed after every row group
	meta    Meta
	limit   int
	open    int // rows in the open (unflushed) row group
	buf     []row
	closed  bool
	written int64
}

// NewWriter starts a records file on w with meta in its key-value metadata
// and the default options.
func NewWriter(w io.Writer, meta Meta) (*Writer, error) {
	return NewWriterOptions(w, meta, Options{})
}

// NewWriterOptions is NewWriter with options.
func NewWriterOptions(w io.Writer, meta Meta, opts Options) (*Writer, error) {
	if w == nil {
		return nil, errors.New("records: nil io.Writer")
	}
	limit := opts.RowGroupRows
	if limit <= 0 {
		limit = DefaultRowGroupRows
	}
	meta.SchemaVersion = SchemaVersion
	meta.EndpointURL = StripCredentials(meta.EndpointURL)
	wopts := []parquet.WriterOption{
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault}),
		parquet.MaxRowsPerRowGroup(int64(limit)),
		parquet.CreatedBy("llmbench", meta.Version, ""),
		// parquet-go's own write buffer would hold the tail of a finished
		// row group back until the next one; ours is flushed per group.
		parquet.WriteBufferSize(0),
	}
	for _, kv := range meta.pairs() {
		wopts = append(wopts, parquet.KeyValueMetadata(kv[0], kv[1]))
	}
	out := bufio.NewWriterSize(w, 256*1024)
	return &Writer{
		pw:    parquet.NewGenericWriter[row](out, wopts...),
		out:   out,
		meta:  meta,
		limit: limit,
	}, nil
}

// Write appends records, in order. Whenever the open row group reaches
// Options.RowGroupRows rows it is compressed and written to the underlying
// io.Writer, so memory holds at most one row group.
func (w *Writer) Write(recs ...metrics.Record) error {
	if w.closed {
		return errors.New("records: write after Close")
	}
	for len(recs) > 0 {
		n := min(len(recs), w.limit-w.open)
		w.buf = w.buf[:0]
		for i := range recs[:n] {
			w.buf = append(w.buf, w.toRow(&recs[i]))
		}
		if _, err := w.pw.Write(w.buf); err != nil {
			return err
		}
		clear(w.buf) // drop references to slices until the next call
		w.open += n
		w.written += int64(n)
		recs = recs[n:]
		if w.open >= w.limit {
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// Flush ends the open row group early and writes it out to the underlying
// io.Writer (no-op when it is empty), e.g. at a checkpoint.
func (w *Writer) Flush() error {
	if w.closed {
		return errors.New("records: flush after Close")
	}
	if w.open == 0 {
		return nil
	}
	w.open = 0
	if err := w.pw.Flush(); err != nil {
		return err
	}
	return w.out.Flush()
}

// Finish sets what is only known once every record is in — the token
// counting description (with its fallback count) and the run description
// — in the metadata the footer will carry.
func (w *Writer) Finish(tokenCounting, config string) {
	w.meta.TokenCounting, w.meta.Config = tokenCounting, config
	w.pw.SetKeyValueMetadata(keyTokenCounting, tokenCounting)
	w.pw.SetKeyValueMetadata(keyConfig, config)
}

// Rows returns the number of rows written so far.
func (w *Writer) Rows() int64 { return w.written }

// Close writes the open row group and the footer. It does not close the
// underlying io.Writer.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if err := w.pw.Close(); err != nil {
		return err
	}
	return w.out.Flush()
}

func (w *Writer) toRow(r *metrics.Record) row {
	m := metrics.Derive(r)
	out := row{
		Scenario:         w.meta.Scenario,
		Experiment:       w.meta.Experiment,
		Point:            w.meta.Point,
		Repeat:           int32(w.meta.Repeat),
		Shard:            int32(w.meta.Shard),
		RequestID:        r.ID,
		DatasetEntry:     int64(r.Entry),
		DatasetComponent: r.Component,
		ScheduledNs:      r.Scheduled,
		SendTime:         r.Sent,
		ISLTokens:        clamp32(int64(r.InputTokens)),
		OSLTokens:        clamp32(int64(r.OutputTokens)),
		ReasoningChunks:  clamp32(int64(r.ReasoningChunks)),
	}
	if r.Done != 0 {
		out.DoneTime = ptr(r.Done)
	}
	if c := r.Chunks; len(c) > 0 {
		out.FirstChunkTime = ptr(c[0])
		out.LastChunkTime = ptr(c[len(c)-1])
		out.ChunkOffsetsNs = make([]int64, len(c))
		for i, t := range c {
			out.ChunkOffsetsNs[i] = t - r.Sent
		}
	}
	if m.HasContent {
		out.TTFTNs = ptr(m.TTFT)
		out.RequestLatencyNs = ptr(m.Latency)
	}
	if m.HasTTST {
		out.TTSTNs = ptr(m.TTST)
	}
	if m.HasITL {
		out.ITLNs = ptr(m.ITL)
	}
	if m.HasTTFO {
		out.TTFONs = ptr(m.TTFO)
	}
	if m.HasTPSUser {
		out.TPSPerUser = ptr(m.TPSUser)
	}
	if len(m.ChunkGaps) > 0 {
		out.ChunkGapsUs = make([]int32, len(m.ChunkGaps))
		for i, g := range m.ChunkGaps {
			out.ChunkGapsUs[i] = clamp32(int64(math.Round(float64(g) / 1e3)))
		}
	}
	if r.Usage.Reported {
		out.UsagePromptTokens = ptr(clamp32(int64(r.Usage.PromptTokens)))
		out.UsageCompletionTokens = ptr(clamp32(int64(r.Usage.CompletionTokens)))
	}
	if e := r.Err; e != nil {
		out.ErrorClass = ptr(string(e.Class))
		out.ErrorStatus = ptr(clamp32(int64(e.Status)))
		out.ErrorMessage = ptr(e.Message)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func clamp32(v int64) int32 {
	return int32(max(math.MinInt32, min(math.MaxInt32, v)))
}
