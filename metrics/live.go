package metrics

import (
	"slices"
	"sync"
	"time"
)

// LiveWindow gathers the requests that finish during one interval of a
// running point, for live export (--live-metrics) and the live view: how
// many finished and failed, their TTFTs and mean inter-chunk gaps, and
// their content chunks (a live stand-in for output tokens, counted
// exactly only after the point). It never feeds a report: those are
// computed from the records after the point. Safe for concurrent Add.
type LiveWindow struct {
	mu                      sync.Mutex
	requests, errors        int64
	totalRequests, totalErr int64
	chunks                  int64
	ttft, itl               []float64
	since                   int64 // start of the window, ns (0 until the first Take)
}

// Add takes one finished, measured request.
func (w *LiveWindow) Add(r *Record) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.requests++
	w.totalRequests++
	if r.Err != nil {
		w.errors++
		w.totalErr++
		return
	}
	w.chunks += int64(len(r.Chunks))
	if n := len(r.Chunks); n > 0 {
		w.ttft = append(w.ttft, float64(r.Chunks[0]-r.Sent))
		if n > 1 {
			w.itl = append(w.itl, float64(r.Chunks[n-1]-r.Chunks[0])/float64(n-1))
		}
	}
}

// LiveSample is one interval of a running point.
type LiveSample struct {
	// At is the end of the interval; Interval its length. Started is when
	// the point's run started: each run (a repeat of a point too) counts
	// its totals from 0.
	At       time.Time
	Interval time.Duration
	Started  time.Time
	// Requests and Errors finished during the interval (errors among
	// them); the totals count from the point's start.
	Requests, Errors           int64
	TotalRequests, TotalErrors int64
	// RequestThroughput is finished requests per second over the
	// interval; OutputChunkThroughput content chunks per second (≈ output
	// tokens per second on a streaming endpoint).
	RequestThroughput, OutputChunkThroughput float64
	// TTFT and ITL are quantiles (p50, p90, p99) of the interval's
	// successful requests, in seconds; nil when none had the chunks.
	TTFT, ITL *LiveQuantiles
}

// LiveQuantiles are a live distribution's quantiles, in seconds.
type LiveQuantiles struct{ P50, P90, P99 float64 }

// Take closes the interval ending at now and starts the next. The first
// interval starts at the first Take's from.
func (w *LiveWindow) Take(from, now time.Time) LiveSample {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.since == 0 {
		w.since = from.UnixNano()
	}
	d := max(now.Sub(time.Unix(0, w.since)), time.Nanosecond)
	s := LiveSample{At: now, Interval: d, Started: from, Requests: w.requests, Errors: w.errors,
		TotalRequests: w.totalRequests, TotalErrors: w.totalErr,
		RequestThroughput: float64(w.requests) / d.Seconds(), OutputChunkThroughput: float64(w.chunks) / d.Seconds(),
		TTFT: liveQuantiles(w.ttft), ITL: liveQuantiles(w.itl)}
	w.requests, w.errors, w.chunks, w.ttft, w.itl = 0, 0, 0, w.ttft[:0], w.itl[:0]
	w.since = now.UnixNano()
	return s
}

// liveQuantiles are the quantiles of ns values in seconds, by the same
// definition as the reports' percentiles (numpy's linear interpolation).
func liveQuantiles(ns []float64) *LiveQuantiles {
	if len(ns) == 0 {
		return nil
	}
	v := slices.Clone(ns)
	slices.Sort(v)
	return &LiveQuantiles{P50: numpyPercentile(v, 50) / 1e9, P90: numpyPercentile(v, 90) / 1e9, P99: numpyPercentile(v, 99) / 1e9}
}
