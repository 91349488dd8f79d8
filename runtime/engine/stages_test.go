package engine

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/llmbench/llmbench/runtime/plan"
)

// TestStagedRateIsPlannedExactly: stages over rate from 0 —
// [(2s, 8), (1s, 8), (2s, 0)], constant arrivals (gaps of 1/8 s, exact in
// binary) — expects 8 requests per stage (∫rate: 8, 8, 8) and plans
// arrival k (k/8 s at the peak rate, so expected count k) where
// ∫₀ᵗ rate = k. By hand: ramp up t = √(2·2·k/8): k=2 1 s, k=4 √2 s; the
// hold from k=8 at 2 s, k=12 2.5 s; the ramp down from k=16 at 3 s,
// solving 8τ − 2τ² = k−16: k=20 3+8/(8+√32) = 3.585786438 s, k=23
// 3+14/(8+√8) = 4.292893219 s; k=24 would be due at 5 s, the end, and is
// not sent.
func TestStagedRateIsPlannedExactly(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: time.Millisecond}
		l := plan.Load{Rate: 8, Arrival: plan.Constant, Burstiness: 1,
			Stages: &plan.Stages{List: []plan.Stage{{Duration: 2 * time.Second, Target: 8}, {Duration: time.Second, Target: 8}, {Duration: 2 * time.Second, Target: 0}}}}
		p := Point{Load: l, Stop: plan.Stop{Duration: 5 * time.Second}}
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		recs := Run(context.Background(), p, s, clock, testRequests(1)).Records
		if len(recs) != 24 {
			t.Fatalf("%d records, want 24", len(recs))
		}
		want := map[int]float64{2: 1, 4: math.Sqrt2, 8: 2, 12: 2.5, 16: 3, 20: 3.585786438, 23: 4.292893219}
		for k, secs := range want {
			got := time.Duration(recs[k].Scheduled - recs[0].Scheduled).Seconds()
			if math.Abs(got-secs) > 2e-9 {
				t.Errorf("arrival %d planned at %.9f s, want %.9f", k, got, secs)
			}
		}
		perStage := make([]int, 3)
		for i, r := range recs {
			perStage[r.Stage]++
			if r.Sent != r.Scheduled {
				t.Errorf("arrival %d sent %v after its planned instant", i, time.Duration(r.Sent-r.Scheduled))
			}
		}
		if !slices.Equal(perStage, []int{8, 8, 8}) {
			t.Errorf("requests per stage %v, want [8 8 8]", perStage)
		}
	})
}

// TestStagedConcurrencyStartsAndStopsWorkers: stages over concurrency
// [(300ms, 3), (200ms, 3), (200ms, 1)] with 50 ms requests. Worker k runs
// while the target exceeds k−1: rising 0→3 over 300 ms, workers start at
// 0, 100 and 200 ms; falling 3→1 over 200 ms from 500 ms, the count drops
// to 2 at 600 ms and to 1 at 700 ms, the end. So worker 1 sends at 0, 50,
// ... 650 ms (14), worker 2 at 100 ... 650 (12), worker 3 at 200 ... 550
// (8): per stage [0,300) 6+4+2, [300,500) 4+4+4, [500,700) 4+4+2.
func TestStagedConcurrencyStartsAndStopsWorkers(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: 50 * time.Millisecond}
		l := plan.Load{Concurrency: 3, Stages: &plan.Stages{List: []plan.Stage{
			{Duration: 300 * time.Millisecond, Target: 3}, {Duration: 200 * time.Millisecond, Target: 3}, {Duration: 200 * time.Millisecond, Target: 1}}}}
		p := Point{Load: l, Stop: plan.Stop{Duration: l.StagesDuration()}}
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		recs := Run(context.Background(), p, s, clock, testRequests(1)).Records
		var want []time.Duration
		for _, w := range []struct{ from, to float64 }{{0, 650}, {100, 650}, {200, 550}} {
			for at := w.from; at <= w.to; at += 50 {
				want = append(want, ms(at)...)
			}
		}
		slices.Sort(want)
		if got := s.sends(); !slices.Equal(got, want) {
			t.Errorf("sends at\n%v\nwant\n%v", got, want)
		}
		perStage := make([]int, 3)
		for _, r := range recs {
			perStage[r.Stage]++
		}
		if !slices.Equal(perStage, []int{12, 12, 10}) {
			t.Errorf("requests per stage %v, want [12 12 10]", perStage)
		}
	})
}

// TestWorkerStepsHandValues: the count's steps of a profile, by hand —
// k6's ramp-down (the count reaches L when the target does), a ramp up
// from 0 starting its first worker at once, a jump, and the end.
func TestWorkerStepsHandValues(t *testing.T) {
	l := plan.Load{Concurrency: 4, Stages: &plan.Stages{Start: 1, List: []plan.Stage{
		{Duration: 300 * time.Millisecond, Target: 4}, {Duration: 0, Target: 2}, {Duration: 400 * time.Millisecond, Target: 0}}}}
	got := workerSteps(l)
	want := []step{{0, 1}, {0, 2}, {100 * time.Millisecond, 3}, {200 * time.Millisecond, 4},
		{300 * time.Millisecond, 2}, {500 * time.Millisecond, 1}, {700 * time.Millisecond, 0}, {700 * time.Millisecond, 0}}
	if !slices.Equal(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
	spans := workerSpans(got)
	if len(spans) != 4 || spans[3][0] != (span{200 * time.Millisecond, 300 * time.Millisecond}) || spans[0][0] != (span{0, 700 * time.Millisecond}) {
		t.Errorf("spans %v", spans)
	}
}

func TestStagesPointRefusals(t *testing.T) {
	l := plan.Load{Concurrency: 2, Stages: &plan.Stages{List: []plan.Stage{{Duration: time.Second, Target: 2}}}}
	for _, p := range []Point{
		{Load: l, Stop: plan.Stop{Requests: 10}},
		{Load: l, Stop: plan.Stop{Duration: time.Second}, Warmup: 3},
		{Load: plan.Load{Concurrency: 2, Stages: &plan.Stages{List: []plan.Stage{{Duration: time.Second, Target: 1.5}}}}, Stop: plan.Stop{Duration: time.Second}},
	} {
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}
