package metrics

import (
	"math"
	"testing"
	"time"
)

// windowRecords makes, per window of 1 s from 0, n requests finishing
// evenly inside it with the given latency (ms); the first is sent at 0.
func windowRecords(windows ...[2]int) []Record {
	var recs []Record
	for w, spec := range windows {
		n, lat := spec[0], int64(spec[1])*int64(time.Millisecond)
		for i := range n {
			done := int64(w)*int64(time.Second) + int64(i+1)*int64(time.Second)/int64(n+1)
			recs = append(recs, Record{Sent: max(0, done-lat), Done: done, Chunks: []int64{done}})
		}
	}
	recs[0].Sent = 0
	return recs
}

// perf_analyzer's rule by hand, 1 s windows at 10%: a warm burst of 20
// requests in the first window keeps the first three windows apart
// (throughput 20, 10, 10: spread 100%); the next window makes the last
// three agree (10, 10, 10 req/s; latency 100, 100, 102 ms: spread 2%), so
// the point stops there with the first window's 20 requests as warm-up.
func TestStabilityWindowsByHand(t *testing.T) {
	rule := SteadyRule{Stability: &StabilityRule{Window: int64(time.Second), Percentage: 10, MaxWindows: 10}}
	c := NewSteadyChecker(rule, SteadyMetrics(false))
	recs := windowRecords([2]int{20, 50}, [2]int{10, 100}, [2]int{10, 100}, [2]int{10, 102}, [2]int{1, 100})
	var checks []*SteadyCheck
	for i := range recs {
		if chk := c.Add(&recs[i]); chk != nil {
			checks = append(checks, chk)
		}
	}
	if len(checks) != 4 {
		t.Fatalf("%d checks, want one per window closed (4)", len(checks))
	}
	third, fourth := checks[2], checks[3]
	if third.Met || third.Widths[0].Metric != "throughput" || math.Abs(third.Widths[0].Width-1) > 1e-9 {
		t.Errorf("third window's check %+v, want not met with throughput spread 100%%", third)
	}
	w := fourth.Windows[3]
	if !fourth.Met || fourth.Warmup != 20 || fourth.Requests != 50 || w.Requests != 10 || w.Throughput != 10 ||
		math.Abs(fourth.Widths[1].Width-0.02) > 1e-9 || w.Latency != 102e6 {
		t.Errorf("fourth window's check %+v, want met, 20 warm-up of 50, latency spread 2%%", fourth)
	}
	if got := c.Check(); got.Requests != 50 {
		t.Errorf("Check %+v, want the last closed windows'", got)
	}
}

// A window with no finished request is never stable (its throughput 0
// makes the spread infinite), and the rule is refused out of range.
func TestStabilityWindowsRefuse(t *testing.T) {
	c := NewSteadyChecker(SteadyRule{Stability: &StabilityRule{Window: int64(time.Second), Percentage: 999, MaxWindows: 10}}, SteadyMetrics(false))
	recs := windowRecords([2]int{5, 100}, [2]int{5, 100}, [2]int{0, 0}, [2]int{5, 100}, [2]int{1, 100})
	for i := range recs {
		if chk := c.Add(&recs[i]); chk != nil && chk.Met {
			t.Fatalf("met with an empty window: %+v", chk)
		}
	}
	for _, r := range []StabilityRule{{Window: 0, Percentage: 10, MaxWindows: 10}, {Window: 1, Percentage: 0, MaxWindows: 10}, {Window: 1, Percentage: 10, MaxWindows: 2}} {
		if (SteadyRule{Stability: &r}).Validate() == nil {
			t.Errorf("%+v accepted", r)
		}
	}
}
