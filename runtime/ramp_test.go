package runtime

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/llmbench/llmbench/transport"
)

// TestRampedRateIsPlannedExactly: rate(10, constant) ramped over 2 s plans
// arrival k (offset 0.1·k s at the full rate) at √(2·2·0.1k) s during the
// ramp and at 0.1k + 1 s after it — by hand: k=1 0.632456 s, k=5 1.414214 s,
// k=10 2 s, k=15 2.5 s.
func TestRampedRateIsPlannedExactly(t *testing.T) {
	clock := transport.NewClock()
	s := &sleepySender{clock: clock, d: time.Millisecond}
	p := Point{Load: Load{Rate: 10, Arrival: Constant, RampUp: 2 * time.Second}, Stop: Stop{Requests: 16}}
	recs := Run(context.Background(), p, s, clock, testRequests(1)).Records
	if len(recs) != 16 {
		t.Fatalf("%d records, want 16", len(recs))
	}
	want := map[int]float64{1: 0.632455532, 5: 1.414213562, 10: 2, 15: 2.5}
	for k, secs := range want {
		got := time.Duration(recs[k].Scheduled - recs[0].Scheduled).Seconds()
		if math.Abs(got-secs) > 2e-9 { // to the ns: offsets are float sums truncated to ns
			t.Errorf("arrival %d planned at %.9f s, want %.9f", k, got, secs)
		}
	}
}

// TestRampedConcurrencyStartsWorkersInSteps: concurrency(4) ramped over
// 400 ms starts its workers 100 ms apart, so the first requests are sent
// at about 0, 100, 200 and 300 ms (generous bounds: measured times).
func TestRampedConcurrencyStartsWorkersInSteps(t *testing.T) {
	clock := transport.NewClock()
	s := &sleepySender{clock: clock, d: 500 * time.Millisecond}
	p := Point{Load: Load{Concurrency: 4, RampUp: 400 * time.Millisecond}, Stop: Stop{Requests: 4}}
	start := clock.Now()
	recs := Run(context.Background(), p, s, clock, testRequests(1)).Records
	sent := make([]float64, len(recs))
	for i, r := range recs {
		sent[i] = time.Duration(r.Sent - start).Seconds()
	}
	slices.Sort(sent)
	t.Logf("first sends at %v s", sent)
	for i, at := range sent {
		if lo := 0.1 * float64(i); at < lo-0.001 || at > lo+0.25 {
			t.Errorf("worker %d first sent at %.3f s, want about %.1f s", i, at, lo)
		}
	}
}

func TestRampTimeHandValues(t *testing.T) {
	for _, c := range []struct{ u, ramp, want float64 }{
		{0, 2, 0}, {0.5, 2, math.Sqrt(2)}, {1, 2, 2}, {3, 2, 4}, {3, 0, 3},
	} {
		if got := rampTime(c.u, c.ramp); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("rampTime(%v, %v) = %v, want %v", c.u, c.ramp, got, c.want)
		}
	}
	if got := rampStart(3, 4, 400*time.Millisecond); got != 300*time.Millisecond {
		t.Errorf("rampStart(3 of 4 over 400ms) = %v, want 300ms", got)
	}
}
