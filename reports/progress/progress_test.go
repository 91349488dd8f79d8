package progress

import (
	"strings"
	"testing"
	"time"

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
