package engine

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/llmbench/llmbench/metrics"
)

// Progress is a point's live state, updated as requests finish and read
// by a progress display from another goroutine. It never feeds metrics:
// reports are computed from the records, exactly, after the point.
type Progress struct {
	Completed atomic.Int64
	Failed    atomic.Int64
	// Chunks counts content chunks received, a live stand-in for output
	// tokens (tokens are counted exactly after the point).
	Chunks atomic.Int64
	// Started is when the point's first measured request was sent (Clock
	// ns).
	Started atomic.Int64
	// Warmup counts finished warmup requests: until the first measured
	// one finishes, a display says it is warming up.
	Warmup atomic.Int64
	// InFlight counts requests sent and not yet finished, warm-up ones
	// included: the live view's in-flight figure.
	InFlight atomic.Int64
	// Tap, when set before the point starts, also receives every
	// finished measured request (live export, the live view); it is
	// called from the requests' goroutines, concurrently.
	Tap func(*metrics.Record)

	mu    sync.Mutex
	ttfts []int64 // the most recent TTFTs, a ring
	next  int
}

// recentTTFTs bounds the live TTFT window: enough for a stable median,
// small enough to sort twice a second.
const recentTTFTs = 512

// sending moves the in-flight count by d (+1 sent, −1 finished).
func (p *Progress) sending(d int64) {
	if p != nil {
		p.InFlight.Add(d)
	}
}

// warmedUp records one finished warmup request.
func (p *Progress) warmedUp() {
	if p != nil {
		p.Warmup.Add(1)
	}
}

// observe records one finished, measured request.
func (p *Progress) observe(rec *metrics.Record) {
	if p == nil {
		return
	}
	p.Started.CompareAndSwap(0, rec.Sent)
	if p.Tap != nil {
		p.Tap(rec)
	}
	if rec.Err != nil {
		p.Failed.Add(1)
		return
	}
	p.Completed.Add(1)
	p.Chunks.Add(int64(len(rec.Chunks)))
	if len(rec.Chunks) == 0 {
		return
	}
	p.mu.Lock()
	if len(p.ttfts) < recentTTFTs {
		p.ttfts = append(p.ttfts, rec.Chunks[0]-rec.Sent)
	} else {
		p.ttfts[p.next] = rec.Chunks[0] - rec.Sent
		p.next = (p.next + 1) % recentTTFTs
	}
	p.mu.Unlock()
}

// MedianTTFT is the median of the most recent TTFTs in ns, 0 before any.
func (p *Progress) MedianTTFT() int64 {
	p.mu.Lock()
	recent := slices.Clone(p.ttfts)
	p.mu.Unlock()
	if len(recent) == 0 {
		return 0
	}
	slices.Sort(recent)
	return recent[len(recent)/2]
}
