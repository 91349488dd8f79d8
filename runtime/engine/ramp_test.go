package engine

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/llmbench/llmbench/runtime/plan"
)

// TestRampedRateIsPlannedExactly: rate(10, constant) ramped over 2 s plans
// arrival k (offset 0.1·k s at the full rate) at √(2·2·0.1k) s during the
// ramp and at 0.1k + 1 s after it — by hand: k=1 0.632456 s, k=5 1.414214 s,
// k=10 2 s, k=15 2.5 s.
func TestRampedRateIsPlannedExactly(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: time.Millisecond}
		p := Point{Load: plan.Load{Rate: 10, Arrival: plan.Constant, RampUp: 2 * time.Second}, Stop: plan.Stop{Requests: 16}}
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
		for i, r := range recs {
			if r.Sent != r.Scheduled {
				t.Errorf("arrival %d sent %v after its planned instant", i, time.Duration(r.Sent-r.Scheduled))
			}
		}
	})
}

// TestRampedConcurrencyStartsWorkersInSteps: concurrency(4) ramped over
// 400 ms starts its workers 100 ms apart, so the first requests are sent
// at exactly 0, 100, 200 and 300 ms.
func TestRampedConcurrencyStartsWorkersInSteps(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: 500 * time.Millisecond}
		p := Point{Load: plan.Load{Concurrency: 4, RampUp: 400 * time.Millisecond}, Stop: plan.Stop{Requests: 4}}
		Run(context.Background(), p, s, clock, testRequests(1))
		if got, want := s.sends(), ms(0, 100, 200, 300); !slices.Equal(got, want) {
			t.Errorf("first sends at %v, want %v", got, want)
		}
	})
}

func TestRampTimeHandValues(t *testing.T) {
	for _, c := range []struct{ u, ramp, want float64 }{
		{0, 2, 0}, {0.5, 2, math.Sqrt(2)}, {1, 2, 2}, {3, 2, 4}, {3, 0, 3},
	} {
		w := newTimeWarp(plan.Load{Rate: 1, RampUp: time.Duration(c.ramp * float64(time.Second))})
		got := c.u
		if w != nil {
			got = w.at(c.u)
		}
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ramp_up=%vs: offset %v due at %v, want %v", c.ramp, c.u, got, c.want)
		}
	}
	if got := rampStart(3, 4, 400*time.Millisecond); got != 300*time.Millisecond {
		t.Errorf("rampStart(3 of 4 over 400ms) = %v, want 300ms", got)
	}
}
