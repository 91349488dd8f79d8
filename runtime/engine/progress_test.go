package engine

import (
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

func TestProgressCountsAndMedian(t *testing.T) {
	p := &Progress{}
	for i := range 1000 { // TTFTs 0..999 ns; the ring keeps the last 512
		p.observe(&metrics.Record{Sent: 10, Chunks: []int64{10 + int64(i), 20 + int64(i)}})
	}
	p.observe(&metrics.Record{Sent: 5, Err: &metrics.Failure{Class: metrics.ErrHTTP}})
	if p.Completed.Load() != 1000 || p.Failed.Load() != 1 || p.Chunks.Load() != 2000 || p.Started.Load() != 10 {
		t.Errorf("counters: completed %d failed %d chunks %d started %d",
			p.Completed.Load(), p.Failed.Load(), p.Chunks.Load(), p.Started.Load())
	}
	if m := p.MedianTTFT(); m != 744 { // median of 488..999
		t.Errorf("median TTFT %d, want 744", m)
	}
	var nilProgress *Progress
	nilProgress.observe(&metrics.Record{}) // no progress display: a no-op
}
