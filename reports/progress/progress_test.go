package progress

import (
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/engine"
)

// Until a measured request finishes, a point with warmup says it is
// warming up rather than showing 0 requests and a 0 ms TTFT.
func TestProgressLineSaysWarmup(t *testing.T) {
	p := &engine.Progress{}
	p.Warmup.Add(3)
	pr := &progress{title: "e/concurrency1", total: 8, warmup: 5, p: p, start: time.Now()}
	if got := pr.line(); !strings.Contains(got, "warming up, 3/5 warmup requests") {
		t.Errorf("during warmup: %q", got)
	}
	p.Completed.Add(1)
	if got := pr.line(); !strings.Contains(got, "1/8 requests") || strings.Contains(got, "warming") {
		t.Errorf("after warmup: %q", got)
	}
}

// The terminal's second line, by hand: a 1 s sample of 12 requests (1
// failed), 96 chunks, TTFT p50 21.0 / p99 45.0 ms, no ITL, 8 in flight.
func TestPanelLine(t *testing.T) {
	s := metrics.LiveSample{Interval: time.Second, Requests: 12, Errors: 1, RequestThroughput: 12, OutputChunkThroughput: 96,
		TTFT: &metrics.LiveQuantiles{P50: 0.021, P90: 0.03, P99: 0.045}}
	want := "  last 1s: 12.0 req/s, 96 tok/s · TTFT p50 21.0 p99 45.0 ms · ITL – · 1 errors · 8 in flight"
	if got := panel(s, 8); got != want {
		t.Errorf("panel\n got %q\nwant %q", got, want)
	}
}

// On a terminal the two lines are redrawn in place: the first draw
// writes both, the next backs up one line first.
func TestRedrawInPlace(t *testing.T) {
	var b strings.Builder
	pr := &progress{w: &b, tty: true, title: "e/concurrency1", p: &engine.Progress{}, start: time.Now()}
	pr.redraw()
	pr.redraw()
	out := b.String()
	if strings.Count(out, "\n") != 2 || strings.Count(out, "\033[1A") != 1 || !strings.HasPrefix(out, "\re/concurrency1: 0 requests") {
		t.Errorf("redraws %q", out)
	}
}

func TestPanelBeforeTheFirstSample(t *testing.T) {
	if got := panel(metrics.LiveSample{}, 3); got != "  3 in flight" {
		t.Errorf("panel %q", got)
	}
}
