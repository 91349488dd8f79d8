package records

import (
	"errors"
	"fmt"
	"io"

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
	absent := absentFields(f.Schema())
	rd := parquet.NewGenericReader[row](f)
	defer rd.Close()
	buf := make([]row, 1024)
	for {
		n, err := rd.Read(buf)
		for i := range buf[:n] {
			clearFields(&buf[i], absent)
			rec := fromRow(&buf[i])
			if err := fn(&rec); err != nil {
				return meta, err
			}
		}
		if errors.Is(err, io.EOF) {
			return meta, nil
		}
		if err != nil {
			return meta, fmt.Errorf("records: %w", err)
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
	f, err := parquet.OpenFile(r, size)
	if err != nil {
		if footerless(r, size) {
			return nil, Meta{}, ErrNoFooter
		}
		return nil, Meta{}, fmt.Errorf("records: %w", err)
	}
	meta := metaFrom(f.Lookup)
	if err := upgrade(&meta); err != nil {
		return nil, meta, err
	}
	return f, meta, nil
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
		Component:       x.DatasetComponent,
		Scheduled:       x.ScheduledNs,
		Sent:            x.SendTime,
		ReasoningChunks: int(x.ReasoningChunks),
		Retries:         int(deref(x.Retries)),
		InputTokens:     int(x.ISLTokens),
		OutputTokens:    int(x.OSLTokens),
	}
	if x.DoneTime != nil {
		r.Done = *x.DoneTime
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
	}
	if x.ErrorClass != nil {
		r.Err = &metrics.Failure{
			Class:   metrics.ErrorClass(*x.ErrorClass),
			Status:  int(deref(x.ErrorStatus)),
			Message: deref(x.ErrorMessage),
		}
	}
	return r
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
