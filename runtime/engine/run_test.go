package engine

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/llmbench/llmbench/runtime/plan"
)

func testRequests(n int) []Request {
	reqs := make([]Request, n)
	for i := range reqs {
		reqs[i] = Request{Body: []byte("{}"), Words: i}
	}
	return reqs
}

// TestClosedLoopKeepsExactlyNInFlight: concurrency(4) of 2 ms requests
// sends its 8 warm-up and 40 measured requests in 12 rounds of 4, every
// 2 ms, never more than 4 at once.
func TestClosedLoopKeepsExactlyNInFlight(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: 2 * time.Millisecond}
		p := Point{Load: plan.Load{Concurrency: 4}, Stop: plan.Stop{Requests: 40}, Warmup: 8}
		res := Run(context.Background(), p, s, clock, testRequests(3))
		if len(res.Records) != 40 {
			t.Fatalf("%d records, want 40 (warmup excluded)", len(res.Records))
		}
		if s.peak.Load() != 4 {
			t.Errorf("peak in flight %d, want 4", s.peak.Load())
		}
		for i, rec := range res.Records {
			if rec.ID != int64(i) || rec.Entry != (i+8)%3 {
				t.Errorf("record %d has ID %d entry %d, want ID %d entry %d", i, rec.ID, rec.Entry, i, (i+8)%3)
			}
		}
		var want []time.Duration
		for round := range 12 {
			for range 4 {
				want = append(want, time.Duration(round)*2*time.Millisecond)
			}
		}
		if got := s.sends(); !slices.Equal(got, want) {
			t.Errorf("sent at %v, want %v", got, want)
		}
	})
}

// TestClosedLoopStopsByDuration: concurrency(2) of 5 ms requests for
// 100 ms sends at 0, 5, ..., 95 ms, two at a time: exactly 40.
func TestClosedLoopStopsByDuration(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: 5 * time.Millisecond}
		p := Point{Load: plan.Load{Concurrency: 2}, Stop: plan.Stop{Duration: 100 * time.Millisecond}}
		res := Run(context.Background(), p, s, clock, testRequests(1))
		if n := len(res.Records); n != 40 {
			t.Errorf("%d records in 100 ms at concurrency 2 of 5 ms requests, want 40", n)
		}
		if last := s.sends()[len(s.sends())-1]; last != 95*time.Millisecond {
			t.Errorf("last send at %v, want 95ms", last)
		}
	})
}

// TestOpenLoopSendsOnSchedule: every request of an open loop is sent at
// exactly its seeded instant, counted from the start plus openLoopLead.
func TestOpenLoopSendsOnSchedule(t *testing.T) {
	for _, arrival := range []plan.Arrival{plan.Constant, plan.Poisson, plan.Gamma} {
		t.Run(string(arrival), func(t *testing.T) {
			onFakeClock(t, func(clock *fakeClock) {
				s := &clockSender{clock: clock, d: time.Millisecond}
				load := plan.Load{Rate: 500, Arrival: arrival, Burstiness: 0.5}
				p := Point{Load: load, Stop: plan.Stop{Requests: 200}, Warmup: 10, Seed: 7}
				res := Run(context.Background(), p, s, clock, testRequests(5))
				if len(res.Records) != 200 {
					t.Fatalf("%d records, want 200", len(res.Records))
				}
				sched := newSchedule(load, 7)
				for range 10 {
					sched.next()
				}
				origin := fakeEpoch.UnixNano() + int64(openLoopLead)
				for i, rec := range res.Records {
					if want := origin + int64(sched.next()); rec.Scheduled != want || rec.Sent != want {
						t.Fatalf("record %d planned at %d and sent at %d, want both at %d", i, rec.Scheduled, rec.Sent, want)
					}
				}
			})
		})
	}
}

// TestOpenLoopMaxConcurrencyCapsAndRecordsLag: rate(1000, constant,
// max_concurrency=3) of 20 ms requests plans arrival i at 5+i ms; each
// waits for a slot, so it is sent at 5 + i%3 + 20·(i/3) ms and its lag
// is recorded: the last, planned at 34 ms, goes at 187 ms.
func TestOpenLoopMaxConcurrencyCapsAndRecordsLag(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: 20 * time.Millisecond}
		p := Point{Load: plan.Load{Rate: 1000, Arrival: plan.Constant, MaxConcurrency: 3}, Stop: plan.Stop{Requests: 30}}
		res := Run(context.Background(), p, s, clock, testRequests(1))
		if s.peak.Load() != 3 || res.Dropped != 0 {
			t.Errorf("peak in flight %d, dropped %d; want 3 and none (a cap makes arrivals wait)", s.peak.Load(), res.Dropped)
		}
		for i, rec := range res.Records {
			planned := time.Duration(5+i) * time.Millisecond
			sent := time.Duration(5+i%3+20*(i/3)) * time.Millisecond
			if lag := time.Duration(rec.Sent - rec.Scheduled); lag != sent-planned {
				t.Errorf("request %d lagged %v, want %v (planned %v, sent %v)", i, lag, sent-planned, planned, sent)
			}
		}
	})
}

// TestInterruptKeepsCompletedRecords: concurrency(2) of 10 ms requests
// interrupted at 65 ms has completed 12; the 2 in flight finish within
// the grace, at 70 ms, and are kept too.
func TestInterruptKeepsCompletedRecords(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: 10 * time.Millisecond}
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			fired, _ := clock.Timer(clock.Now() + int64(65*time.Millisecond))
			<-fired
			cancel()
		}()
		p := Point{Load: plan.Load{Concurrency: 2}, Stop: plan.Stop{Requests: 100000}, Grace: time.Second}
		res := Run(ctx, p, s, clock, testRequests(1))
		if !res.Interrupted || len(res.Records) != 14 {
			t.Fatalf("interrupted=%v with %d records, want interrupted with 14", res.Interrupted, len(res.Records))
		}
		for _, rec := range res.Records {
			if rec.Err != nil {
				t.Fatalf("a record failed: %+v (in-flight requests should finish within the grace)", rec.Err)
			}
		}
	})
}

// The schedules' mean gap is 1/rate, and the seed fixes them.
func TestScheduleStatistics(t *testing.T) {
	for _, l := range []plan.Load{
		{Rate: 100, Arrival: plan.Poisson}, {Rate: 100, Arrival: plan.Gamma, Burstiness: 0.25},
		{Rate: 100, Arrival: plan.Gamma, Burstiness: 4}, {Rate: 100, Arrival: plan.Constant},
	} {
		s := newSchedule(l, 1)
		const n = 200000
		var last time.Duration
		var sumSq float64
		for range n {
			at := s.next()
			g := (at - last).Seconds()
			sumSq += g * g
			last = at
		}
		mean := last.Seconds() / n
		if math.Abs(mean-0.01) > 0.0002 {
			t.Errorf("%s/%g: mean gap %.5f s, want 0.01", l.Arrival, l.Burstiness, mean)
		}
		// Coefficient of variation: 0 constant, 1 Poisson, 1/sqrt(k) gamma.
		cv := math.Sqrt(sumSq/n-mean*mean) / mean
		want := map[plan.Arrival]float64{plan.Constant: 0, plan.Poisson: 1, plan.Gamma: 1 / math.Sqrt(l.Burstiness)}[l.Arrival]
		if math.Abs(cv-want) > 0.03*math.Max(want, 1) {
			t.Errorf("%s/%g: coefficient of variation %.3f, want %.3f", l.Arrival, l.Burstiness, cv, want)
		}
		a, b := newSchedule(l, 9), newSchedule(l, 9)
		for range 100 {
			if a.next() != b.next() {
				t.Fatalf("%s: same seed, different schedules", l.Arrival)
			}
		}
	}
}

func TestPointValidate(t *testing.T) {
	bad := []Point{
		{Load: plan.Load{}, Stop: plan.Stop{Requests: 1}},
		{Load: plan.Load{Concurrency: 1, Rate: 1}, Stop: plan.Stop{Requests: 1}},
		{Load: plan.Load{Concurrency: 1}, Stop: plan.Stop{}},
		{Load: plan.Load{Concurrency: 1}, Stop: plan.Stop{Requests: 1, Duration: time.Second}},
		{Load: plan.Load{Rate: 1, Arrival: plan.Gamma}, Stop: plan.Stop{Requests: 1}},
		{Load: plan.Load{Concurrency: 1}, Stop: plan.Stop{Requests: 1}, Warmup: -1},
	}
	for i, p := range bad {
		if p.Validate() == nil {
			t.Errorf("point %d accepted: %+v", i, p)
		}
	}
	if err := (Point{Load: plan.Load{Concurrency: 1}, Stop: plan.Stop{Requests: 1}}).Validate(); err != nil {
		t.Errorf("valid point rejected: %v", err)
	}
}

// TestReplaySendsAtTimestamps: replay(speed=2) sends each entry at
// exactly its timestamp halved, after the lead, the first as warm-up.
func TestReplaySendsAtTimestamps(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: time.Millisecond}
		reqs := testRequests(6)
		for i := range reqs {
			reqs[i].At = time.Duration(i*i) * 10 * time.Millisecond // 0, 10, 40, 90, 160, 250 ms
		}
		p := Point{Load: plan.Load{ReplaySpeed: 2}, Warmup: 1}
		res := Run(context.Background(), p, s, clock, reqs)
		if len(res.Records) != 5 {
			t.Fatalf("%d records, want 5 (6 entries, 1 warmup)", len(res.Records))
		}
		if got, want := s.sends(), ms(5, 10, 25, 50, 85, 130); !slices.Equal(got, want) {
			t.Errorf("sent at %v, want %v", got, want)
		}
		for i, rec := range res.Records {
			if rec.Entry != i+1 || rec.Scheduled != rec.Sent {
				t.Errorf("record %d: entry %d, %v late; want entry %d on time", i, rec.Entry, time.Duration(rec.Sent-rec.Scheduled), i+1)
			}
		}
	})
}
