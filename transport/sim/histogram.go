package sim

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// vLLM's bucket bounds in seconds (vllm/v1/metrics/loggers.py), so the
// simulator's histograms read like a real server's and server-side
// percentiles are computed from the same resolution.
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
		7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}
	itlBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
		10.0, 20.0, 40.0, 80.0}
	requestBuckets = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0,
		60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}
)

// histogram is a Prometheus histogram: cumulative counts per upper
// bound, a sum and a count. Jobs observe into it concurrently.
type histogram struct {
	mu     sync.Mutex
	bounds []float64
	counts []uint64 // counts[i]: observations ≤ bounds[i]; the last is +Inf
	sum    float64
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

// observe adds one duration, in seconds as vLLM reports them.
func (h *histogram) observe(d time.Duration) {
	v := d.Seconds()
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, b := range h.bounds {
		if v <= b {
			h.counts[i]++
		}
	}
	h.counts[len(h.bounds)]++
	h.sum += v
}

// write appends the histogram's _bucket, _sum and _count lines.
func (h *histogram) write(p *promText, name, help, labels string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	fmt.Fprintf(p, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name)
	for i := range h.counts {
		le := "+Inf"
		if i < len(h.bounds) {
			le = strconv.FormatFloat(h.bounds[i], 'f', -1, 64)
			if !strings.ContainsAny(le, ".e") {
				le += ".0" // Python's repr of a float, as vLLM's client library writes it
			}
		}
		fmt.Fprintf(p, "%s_bucket{%s,le=\"%s\"} %d\n", name, labels, le, h.counts[i])
	}
	fmt.Fprintf(p, "%s_sum{%s} %s\n%s_count{%s} %d\n", name, labels, strconv.FormatFloat(h.sum, 'g', -1, 64),
		name, labels, h.counts[len(h.bounds)])
}

// latencies are the server's own view of each request, as vLLM exports
// it: time waiting for a batch slot, to the first token, between tokens,
// in prefill and decode, and end to end.
type latencies struct {
	queue, ttft, itl, prefill, decode, e2e *histogram
}

func newLatencies() *latencies {
	return &latencies{queue: newHistogram(requestBuckets), ttft: newHistogram(ttftBuckets), itl: newHistogram(itlBuckets),
		prefill: newHistogram(requestBuckets), decode: newHistogram(requestBuckets), e2e: newHistogram(requestBuckets)}
}

func (l *latencies) write(p *promText, labels string) {
	for _, h := range []struct {
		name, help string
		h          *histogram
	}{
		{"vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", l.queue},
		{"vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", l.ttft},
		{"vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", l.itl},
		{"vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", l.prefill},
		{"vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", l.decode},
		{"vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", l.e2e},
	} {
		h.h.write(p, h.name, h.help, labels)
	}
}
