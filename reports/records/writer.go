package records

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/parquet-go/parquet-go"
)

// DefaultRowGroupRows is the row group size used when Options.RowGroupRows
// is 0. With the default FlushBytes (a row is at least 200 bytes by
// rowBytes) a row group ends by size before it has this many rows, so this
// bounds memory and a crash's loss only when FlushBytes is raised or off.
// 16 Ki rows of ~30 chunks each measured ~6 MB of column buffers plus
// ~3 MB encoded (64 Ki: ~34 + ~21 MB).
const DefaultRowGroupRows = 16 * 1024

// DefaultFlushInterval is the flush interval used when Options.FlushInterval
// is 0: the oldest record a crash (SIGKILL, OOM, power loss) can lose is
// this old. One second keeps a kill's loss to "the last second" while a
// row group's ~4 KB of footer metadata costs ~15 MB an hour of a busy run;
// an idle writer flushes nothing, so a quiet point adds no row groups.
const DefaultFlushInterval = time.Second

// DefaultFlushBytes is the flush size used when Options.FlushBytes is 0:
// a row group ends once its records hold about this many bytes (chunk
// timestamps and gaps, error messages; rowBytes). What the writer holds is
// one row group — its values, then its compressed pages and the frame they
// are copied into — so this is what bounds its memory when records come
// faster than DefaultFlushInterval ends row groups: above ~2 MiB of values
// a second (~2,300 requests/s of 60 chunks, ~800 of 200), and at the end
// of a many-stream run, when thousands of records arrive within a second
// and the heap grows by whatever the writer allocates (no collection runs
// then). BenchmarkWriterBurst, 10,000 records of 60 chunks (~0.9 KB each):
// 21.5 MB allocated at 8 MiB, 16 MB at 4 MiB, 12 MB at 2 MiB (256 KiB
// pages), for a file 3.5% larger at 2 MiB (5 row groups instead of 2:
// ~3 KB of footer, ~6 KB of frame header and small footer and ~20 KB of
// page and dictionary overhead a row group). Records of very long streams
// (32 Ki chunks: ~400 KB a record) end a row group every few records.
// Each row group also holds its footer entry, ~2.2 KB encoded, until Close
// (footer.add), so a busier point (2.5 row groups a second at 2,000
// requests/s of 200 chunks) holds more of it.
const DefaultFlushBytes = 2 << 20

// pageBufferSize is how many bytes of a column's values parquet-go
// buffers before it encodes and compresses them as a page. parquet-go's
// default, 256 KiB, is reserved up front for each of the schema's 19
// required columns and is what every other column's values grow to before
// they are compressed; at 64 KiB the 10,000-record burst above allocates
// 7.7 MB instead of 12 MB, for a file 1.6% larger (smaller pages compress
// a little worse, and each has a header).
const pageBufferSize = 64 << 10

// pageBuffers holds the open row group's compressed pages, per column, in
// 4 KiB chunks: parquet-go's default chunk of 32 KiB made every one of the
// schema's 41 columns take at least 32 KiB for pages that are mostly a few
// hundred bytes (0.5 MB of the burst above, 2.4 MB at 8 MiB row groups of
// 256 KiB pages). The bytes written are the same.
var pageBuffers = parquet.NewChunkBufferPool(4 << 10)

// Options tune a Writer; the zero value is the default.
type Options struct {
	// RowGroupRows is the number of rows per row group (0:
	// DefaultRowGroupRows). A row group is written out as soon as it is full.
	RowGroupRows int
	// FlushInterval ends the open row group early (0: DefaultFlushInterval;
	// negative: never): once its oldest record is this old it is written
	// out, by the next Write or, when none comes, by a timer, so a writer
	// left idle does not hold its records.
	FlushInterval time.Duration
	// FlushBytes ends the open row group once the records in it hold
	// about this many bytes (0: DefaultFlushBytes; negative: never).
	FlushBytes int64

	// clock is the writer's time; nil is the real one. Tests set it to
	// fire the flush timer when they choose.
	clock clock

	// pageBufferSize is the page buffer size (0: pageBufferSize), for
	// measuring other sizes (BenchmarkWriterBurst).
	pageBufferSize int
}

// clock is where a Writer reads the time and sets its flush timer.
type clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d; stop cancels it.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// Writer streams records to a records.parquet file, in the crash-recoverable
// layout described in layout.go: every row group is written out as a frame
// as soon as it ends, and Close adds the footer. Its methods may be called
// from one goroutine at a time; the writer's own flush timer takes the same
// lock they do.
type Writer struct {
	mu        sync.Mutex
	out       io.Writer
	pw        *parquet.GenericWriter[row] // writes the open frame's Parquet file into frame
	frame     bytes.Buffer                // header placeholder, then the open frame's file
	footer    footer
	offset    int64 // bytes written to out
	meta      Meta
	limit     int
	interval  time.Duration
	maxBytes  int64
	clock     clock
	oldest    time.Time   // when the open row group's first record was written
	stopTimer func() bool // the armed flush timer's stop, nil when none is armed
	timerErr  error       // a flush by the timer that failed, returned by the next call
	open      int         // rows in the open (unflushed) row group
	openBytes int64       // their estimated size (rowBytes)
	shard     int32       // the shard column of rows written from now on
	batch     rowBatch    // the rows of the next parquet-go Write
	closed    bool
	written   int64
}

// NewWriter starts a records file on w with meta in its key-value metadata
// and the default options.
func NewWriter(w io.Writer, meta Meta) (*Writer, error) {
	return NewWriterOptions(w, meta, Options{})
}

// NewWriterOptions is NewWriter with options. It writes the file's first
// frame, which holds no rows but the schema and metadata, so that even a
// run that crashes before its first row group recovers to a readable file.
func NewWriterOptions(w io.Writer, meta Meta, opts Options) (*Writer, error) {
	if w == nil {
		return nil, errors.New("records: nil io.Writer")
	}
	meta.SchemaVersion = strconv.Itoa(SchemaVersion)
	meta.EndpointURL = plan.RedactURL(meta.EndpointURL)
	wr := &Writer{out: w, meta: meta, limit: opts.RowGroupRows, interval: opts.FlushInterval,
		maxBytes: opts.FlushBytes, clock: opts.clock, shard: int32(meta.Shard)}
	if wr.limit <= 0 {
		wr.limit = DefaultRowGroupRows
	}
	if wr.interval == 0 {
		wr.interval = DefaultFlushInterval
	}
	if wr.maxBytes == 0 {
		wr.maxBytes = DefaultFlushBytes
	}
	if wr.clock == nil {
		wr.clock = realClock{}
	}
	pageBytes := opts.pageBufferSize
	if pageBytes <= 0 {
		pageBytes = pageBufferSize
	}
	wopts := []parquet.WriterOption{
		parquet.Compression(new(oneEncoder)),
		parquet.PageBufferSize(pageBytes),
		parquet.ColumnPageBuffers(pageBuffers),
		parquet.MaxRowsPerRowGroup(int64(wr.limit)),
		parquet.CreatedBy("llmbench", meta.Version, ""),
		parquet.WriteBufferSize(0), // frame is the buffer
	}
	for _, kv := range meta.pairs() {
		wopts = append(wopts, parquet.KeyValueMetadata(kv[0], kv[1]))
	}
	wr.frame.Write(make([]byte, frameHeaderSize))
	wr.pw = parquet.NewGenericWriter[row](&wr.frame, wopts...)
	if err := wr.emit([]byte(magic)); err != nil {
		return nil, err
	}
	if err := wr.writeFrame(); err != nil {
		return nil, err
	}
	return wr, nil
}

// Write appends records, in order. The open row group is compressed and
// written to the underlying io.Writer whenever it reaches
// Options.RowGroupRows rows or Options.FlushBytes bytes, or its oldest
// record is Options.FlushInterval old, so memory holds at most one row
// group and a crash loses at most that.
func (w *Writer) Write(recs ...metrics.Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("records: write after Close")
	}
	if err := w.takeTimerErr(); err != nil {
		return err
	}
	for len(recs) > 0 {
		n := w.fill(recs)
		_, err := w.pw.Write(w.batch.rows)
		w.batch.reset()
		if err != nil {
			return err
		}
		if w.open == 0 && n > 0 {
			w.oldest = w.clock.Now()
		}
		w.open += n
		w.written += int64(n)
		recs = recs[n:]
		if w.open >= w.limit || (w.maxBytes > 0 && w.openBytes >= w.maxBytes) {
			if err := w.flush(); err != nil {
				return err
			}
		}
	}
	return w.flushWhenDue()
}

// fill converts the first records of recs into the batch, as many as the
// open row group takes (by rows and by FlushBytes) and one batch holds,
// and returns how many.
func (w *Writer) fill(recs []metrics.Record) int {
	n := min(len(recs), w.limit-w.open)
	for i := range recs[:n] {
		full := w.maxBytes > 0 && w.open+i > 0 && w.openBytes >= w.maxBytes
		if full || w.batch.full() {
			return i // write these, flush if full, go on
		}
		w.openBytes += rowBytes(w.batch.add(&w.meta, w.shard, &recs[i]))
	}
	return n
}

// flushWhenDue writes the open row group out once its oldest record is
// FlushInterval old, and otherwise arms the timer that will, so that a
// record never waits for a next Write that may not come.
func (w *Writer) flushWhenDue() error {
	if w.interval < 0 || w.open == 0 {
		return nil
	}
	age := w.clock.Now().Sub(w.oldest)
	if age >= w.interval {
		return w.flush()
	}
	if w.stopTimer == nil {
		w.stopTimer = w.clock.AfterFunc(w.interval-age, w.timerFlush)
	}
	return nil
}

// timerFlush is the flush timer firing: it writes the open row group out
// (an error is kept for the next call to return).
func (w *Writer) timerFlush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopTimer = nil
	if w.closed || w.open == 0 {
		return
	}
	if err := w.flush(); err != nil && w.timerErr == nil {
		w.timerErr = err
	}
}

// takeTimerErr returns, once, the error of a failed timer flush.
func (w *Writer) takeTimerErr() error {
	err := w.timerErr
	w.timerErr = nil
	return err
}

// rowBytes estimates what a row holds, for FlushBytes: its lists and
// strings plus a fixed part for its scalar columns.
func rowBytes(r *row) int64 {
	n := 200 + 8*len(r.ChunkOffsetsNs) + 4*len(r.ChunkGapsUs)
	if r.ErrorMessage != nil {
		n += len(*r.ErrorMessage)
	}
	return int64(n)
}

// Flush ends the open row group early and writes it out to the underlying
// io.Writer (no-op when it is empty), e.g. at a checkpoint.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("records: flush after Close")
	}
	if err := w.takeTimerErr(); err != nil {
		return err
	}
	return w.flush()
}

// flush is Flush with the lock held.
func (w *Writer) flush() error {
	if w.stopTimer != nil {
		w.stopTimer()
		w.stopTimer = nil
	}
	if w.open == 0 {
		return nil
	}
	w.open, w.openBytes = 0, 0
	return w.writeFrame()
}

// SetShard makes rows written from now on carry shard index i in their
// shard column (the file's own shard, from its Meta, until then): a merge
// writes every shard's records into one file and keeps where each came
// from.
func (w *Writer) SetShard(i int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.shard = int32(i)
}

// writeFrame ends the open frame's Parquet file, writes the frame out in a
// single Write and starts the next one.
func (w *Writer) writeFrame() error {
	if err := w.pw.Close(); err != nil {
		return err
	}
	b := w.frame.Bytes()
	md, err := openMini(b[frameHeaderSize:])
	if err != nil {
		return fmt.Errorf("records: reading back a row group: %w", err)
	}
	b = b[:len(b)-len(magic)]
	putFrameHeader(b[:frameHeaderSize], b[frameHeaderSize:])
	base := w.offset + frameHeaderSize
	if err := w.emit(b); err != nil {
		return err
	}
	if err := w.footer.add(md, base); err != nil {
		return err
	}
	w.frame.Truncate(frameHeaderSize)
	w.pw.Reset(&w.frame)
	return nil
}

// emit writes b to the underlying io.Writer.
func (w *Writer) emit(b []byte) error {
	n, err := w.out.Write(b)
	w.offset += int64(n)
	return err
}

// Finish sets what is only known once every record is in — the token
// counting description (with its fallback count) and the run description
// — in the metadata the footer (and the frame of the open row group) will
// carry.
func (w *Writer) Finish(tokenCounting, config string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.meta.TokenCounting, w.meta.Config = tokenCounting, config
	w.pw.SetKeyValueMetadata(keyTokenCounting, tokenCounting)
	w.pw.SetKeyValueMetadata(keyConfig, config)
}

// SetPointRecord stores the runner's saved plan of the point (see
// Meta.PointRecord); the footer keeps the last one set, so a runner sets
// it when it opens the file and again when the outcome is known.
func (w *Writer) SetPointRecord(record string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.meta.PointRecord = record
	w.pw.SetKeyValueMetadata(keyPointRecord, record)
}

// Rows returns the number of rows written so far.
func (w *Writer) Rows() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.written
}

// Close writes the open row group and the footer. It does not close the
// underlying io.Writer.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	if err := errors.Join(w.takeTimerErr(), w.flush()); err != nil {
		return err
	}
	w.closed = true
	tail, err := w.footer.tail(keyValues(w.meta.pairs()))
	if err != nil {
		return err
	}
	return w.emit(tail)
}
