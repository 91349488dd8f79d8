package runtime

import (
	"context"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// derivedOnceSink checks that every record it is given carries its
// derived metrics: two reads share one gap slice, where a record without
// them is derived again, a new slice each time, by every consumer.
type derivedOnceSink struct {
	t       *testing.T
	checked int
}

func (s *derivedOnceSink) Write(recs ...metrics.Record) error {
	for i := range recs {
		a, b := recs[i].Metrics(), recs[i].Metrics()
		if len(a.ChunkGaps) == 0 {
			continue
		}
		s.checked++
		if &a.ChunkGaps[0] != &b.ChunkGaps[0] {
			s.t.Errorf("record %d is derived again by each consumer (summaries, series, steady rule, writers)", recs[i].ID)
			return nil
		}
	}
	return nil
}

// TestRecordsAreDerivedOnce: a point's records reach its summaries,
// series and writers with their metrics derived once, not once per
// consumer (up to 4 gap slices a record).
func TestRecordsAreDerivedOnce(t *testing.T) {
	sink := &derivedOnceSink{t: t}
	job := Job{Endpoint: plan.Endpoint{URL: "sim://?ttft=1ms&itl=1ms", API: transport.Chat, Stream: true, Model: "m", Timeout: 30 * time.Second},
		Entries: []dataset.Entry{{Text: "hello there", MaxTokens: 6}}, Count: ByUsage, Records: sink, Track: []*metrics.Metric{metrics.ITL},
		Point: engine.Point{Load: plan.Load{Concurrency: 2}, Stop: plan.Stop{Requests: 10}}}
	if _, err := Execute(context.Background(), job); err != nil {
		t.Fatal(err)
	}
	if sink.checked != 10 {
		t.Errorf("%d records with chunk gaps checked, want 10", sink.checked)
	}
}
