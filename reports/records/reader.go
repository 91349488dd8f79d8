package records

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/parquet-go/parquet-go"
)

// ErrNoFooter is returned when reading a records file that has no footer:
// its run crashed (or is still going). Recover gives it one.
var ErrNoFooter = errors.New("records: file has no footer (did its run crash?); records.Recover rebuilds it")

// ReadRecords reads a records.parquet file back into metrics.Record values,
// in file order, and its metadata. Every field metrics reads is restored
// exactly (ID, Component, Scheduled, Sent, Chunks, ReasoningChunks, Done,
// InputTokens, OutputTokens, Usage, Err) as well as Entry; Output and
// ChunkEnds are not stored and come back empty.
func ReadRecords(r io.ReaderAt, size int64) ([]metrics.Record, Meta, error) {
	var out []metrics.Record
	meta, err := ReadEach(r, size, func(rec *metrics.Record) error {
		out = append(out, *rec)
		return nil
	})
	if err != nil {
		return nil, meta, err
	}
	return out, meta, nil
}

// ReadEach is ReadRecords one record at a time: it calls fn with every
// record, in file order, reading the file a page at a time rather than
// holding it in memory. The record is fn's to keep. An error from fn stops
// the read and is returned as is. Files of every schema version up to
// SchemaVersion are read; the columns an older file lacks read as NULL or
// zero.
func ReadEach(r io.ReaderAt, size int64, fn func(*metrics.Record) error) (Meta, error) {
	f, meta, err := open(r, size)
	if err != nil {
		return meta, err
	}
	var absent []int
	var rd *parquet.GenericReader[row]
	if err := guard("its schema", func() error {
		absent = absentFields(f.Schema())
		rd = parquet.NewGenericReader[row](f)
		return nil
	}); err != nil {
		return meta, err
	}
	defer guard("its end", rd.Close) //nolint:errcheck // the rows were read
	buf := make([]row, 1024)
	for done := int64(0); ; {
		var n int
		where := fmt.Sprintf("rows %d to %d", done+1, done+int64(len(buf)))
		err := guard(where, func() (err error) {
			n, err = rd.Read(buf)
			return err
		})
		if errors.Is(err, ErrCorrupt) {
			return meta, err
		}
		for i := range buf[:n] {
			clearFields(&buf[i], absent)
			rec := fromRow(&buf[i])
			if err := fn(&rec); err != nil {
				return meta, err
			}
		}
		done += int64(n)
		switch {
		case errors.Is(err, io.EOF):
			return meta, nil
		case err != nil:
			return meta, fmt.Errorf("records: reading %s: %w", where, err)
		case n == 0:
			// A damaged page can make the reader return no rows and no
			// error for ever (as telemetry.parquet's reader met): the
			// read would never end.
			return meta, &corruptError{where: where, what: "the Parquet reader returned no rows and no end"}
		}
	}
}

// ReadMeta reads only a file's metadata (its footer), e.g. to learn the
// run's goodput SLOs before summarizing its records with ReadEach.
func ReadMeta(r io.ReaderAt, size int64) (Meta, error) {
	_, meta, err := open(r, size)
	return meta, err
}

// open reads the footer and brings its metadata up to the current schema
// version, refusing a version this package cannot read.
func open(r io.ReaderAt, size int64) (*parquet.File, Meta, error) {
	if err := checkFooterLength(r, size); err != nil {
		return nil, Meta{}, err
	}
	var f *parquet.File
	var meta Meta
	err := guard("its footer", func() (err error) {
		// A whole-file read needs neither the page index nor the bloom
		// filters: skipping them skips lengths parquet-go would trust.
		if f, err = parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true)); err == nil {
			meta = metaFrom(f.Lookup)
		}
		return err
	})
	if err != nil {
		if footerless(r, size) {
			return nil, Meta{}, ErrNoFooter
		}
		if errors.Is(err, ErrCorrupt) {
			return nil, Meta{}, err
		}
		return nil, Meta{}, fmt.Errorf("records: %w", err)
	}
	if err := upgrade(&meta); err != nil {
		return nil, meta, err
	}
	return f, meta, nil
}

// checkFooterLength refuses a footer length longer than the file before
// parquet-go allocates a buffer of that length (up to 4 GiB for one
// flipped byte) only to find it cannot be read.
func checkFooterLength(r io.ReaderAt, size int64) error {
	var trailer [4 + len(magic)]byte
	if size < int64(len(magic)+len(trailer)) || readAt(r, trailer[:], size-int64(len(trailer))) != nil || string(trailer[4:]) != magic {
		return nil // not a Parquet file with a footer: parquet-go says what it is
	}
	if n := int64(binary.LittleEndian.Uint32(trailer[:])); n > size-int64(len(magic)+len(trailer)) {
		return &corruptError{where: "its footer length", what: fmt.Sprintf("a footer of %d bytes in a file of %d", n, size)}
	}
	return nil
}

// footerless tells a Parquet file cut short — it starts with the magic
// but does not end with it — from one that is damaged or not Parquet.
func footerless(r io.ReaderAt, size int64) bool {
	if size < 2*int64(len(magic)) {
		return false
	}
	head, end := make([]byte, len(magic)), make([]byte, len(magic))
	return readAt(r, head, 0) == nil && readAt(r, end, size-int64(len(magic))) == nil &&
		string(head) == magic && string(end) != magic
}

// readAt fills p from offset off, where io.ReaderAt may also report
// io.EOF for a read that ends exactly at the end of the input.
func readAt(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	return err
}

func fromRow(x *row) metrics.Record {
	r := metrics.Record{
		ID:              x.RequestID,
		Entry:           int(x.DatasetEntry),
		Component:       text(x.DatasetComponent),
		Scheduled:       x.ScheduledNs,
		Sent:            x.SendTime,
		ReasoningChunks: int(x.ReasoningChunks),
		Retries:         int(deref(x.Retries)),
		Warmup:          x.Warmup,
		Replica:         int(deref(x.Replica)),
		Media: metrics.Media{Images: int(x.ImageCount), ImageBytes: int(x.ImageBytes),
			Audio: int(x.AudioCount), AudioBytes: int(x.AudioBytes), AudioSeconds: x.AudioSeconds},
		InputTokens:  int(x.ISLTokens),
		OutputTokens: int(x.OSLTokens),
	}
	if x.DoneTime != nil {
		r.Done = *x.DoneTime
	}
	if x.Turn != nil {
		r.Session, r.Turn, r.LastTurn = deref(x.SessionID), int(*x.Turn), deref(x.LastTurn)
	}
	if len(x.ChunkOffsetsNs) > 0 {
		r.Chunks = make([]int64, len(x.ChunkOffsetsNs))
		for i, off := range x.ChunkOffsetsNs {
			r.Chunks[i] = x.SendTime + off
		}
	}
	if x.UsagePromptTokens != nil || x.UsageCompletionTokens != nil {
		r.Usage.Reported = true
		r.Usage.PromptTokens = int(deref(x.UsagePromptTokens))
		r.Usage.CompletionTokens = int(deref(x.UsageCompletionTokens))
		if x.CachedTokens != nil {
			r.Usage.CachedTokens, r.Usage.CachedReported = int(*x.CachedTokens), true
		}
	}
	if x.ErrorClass != nil {
		r.Err = &metrics.Failure{
			Class:   metrics.ErrorClass(text(*x.ErrorClass)),
			Status:  int(deref(x.ErrorStatus)),
			Message: text(deref(x.ErrorMessage)),
		}
	}
	return r
}

// text is a string column's value as valid UTF-8, which Parquet's STRING
// type promises and reports rely on: the writer stores only valid UTF-8
// (see Writer.toRow), so invalid bytes are damage, shown as U+FFFD.
func text(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
