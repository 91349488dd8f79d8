package records

import (
	"errors"
	"fmt"
	"io"

	"github.com/llmbench/llmbench/metrics"
	"github.com/parquet-go/parquet-go"
)

// ReadRecords reads a records.parquet file back into metrics.Record values,
// in file order, and its metadata. Every field metrics reads is restored
// exactly (ID, Component, Scheduled, Sent, Chunks, ReasoningChunks, Done,
// InputTokens, OutputTokens, Usage, Err) as well as Entry; Output and
// ChunkEnds are not stored and come back empty.
func ReadRecords(r io.ReaderAt, size int64) ([]metrics.Record, Meta, error) {
	f, err := parquet.OpenFile(r, size)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("records: %w", err)
	}
	meta := metaFrom(f.Lookup)
	if meta.SchemaVersion != SchemaVersion {
		return nil, meta, fmt.Errorf("records: schema version %q, want %q", meta.SchemaVersion, SchemaVersion)
	}
	rd := parquet.NewGenericReader[row](f)
	defer rd.Close()
	out := make([]metrics.Record, 0, f.NumRows())
	buf := make([]row, 1024)
	for {
		n, err := rd.Read(buf)
		for i := range buf[:n] {
			out = append(out, fromRow(&buf[i]))
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, meta, fmt.Errorf("records: %w", err)
		}
	}
	return out, meta, nil
}

func fromRow(x *row) metrics.Record {
	r := metrics.Record{
		ID:              x.RequestID,
		Entry:           int(x.DatasetEntry),
		Component:       x.DatasetComponent,
		Scheduled:       x.ScheduledNs,
		Sent:            x.SendTime,
		ReasoningChunks: int(x.ReasoningChunks),
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
