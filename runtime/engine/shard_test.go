package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/plan"
)

// TestShardStartsAtTheSharedInstant: shard 1 of 2 given a start 1 s ahead
// sends nothing before it, and of rate(10, constant) it sends the odd
// arrivals, each at its instant counted from the shared start: 1.105 s
// and 1.305 s (the lead, then 100 ms apart).
func TestShardStartsAtTheSharedInstant(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: time.Millisecond}
		p := Point{Load: plan.Load{Rate: 10, Arrival: plan.Constant}, Stop: plan.Stop{Requests: 4},
			Shard: Shard{Index: 1, Count: 2}, StartAt: fakeEpoch.Add(time.Second)}
		res := Run(context.Background(), p, s, clock, testRequests(4))
		if got, want := s.sends(), ms(1105, 1305); !slices.Equal(got, want) {
			t.Errorf("sent at %v, want %v", got, want)
		}
		if res.Started != fakeEpoch.Add(time.Second).UnixNano() {
			t.Errorf("started at +%v, want the shared start, +1s", time.Duration(res.Started-fakeEpoch.UnixNano()))
		}
		for i, r := range res.Records {
			if r.ID != int64(2*i+1) {
				t.Errorf("record %d is arrival %d, want %d", i, r.ID, 2*i+1)
			}
		}
	})
}

// TestShardedClosedLoopWaitsForTheSharedStart: a closed loop's workers
// start at the shared instant, not before.
func TestShardedClosedLoopWaitsForTheSharedStart(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: 10 * time.Millisecond}
		p := Point{Load: plan.Load{Concurrency: 2}, Stop: plan.Stop{Requests: 4}, Shard: Shard{Index: 0, Count: 2},
			StartAt: fakeEpoch.Add(250 * time.Millisecond)}
		Run(context.Background(), p, s, clock, testRequests(4))
		if got, want := s.sends(), ms(250, 250, 260, 260); !slices.Equal(got, want) {
			t.Errorf("sent at %v, want %v", got, want)
		}
	})
}

// TestRampedUsersStartInSteps: users(4, qps=40) ramped over 400 ms start
// 100 ms apart (from the lead), then each keeps its own 100 ms pace: by
// 305 ms, 4 + 3 + 2 + 1 turns have been due, the 8 asked for first.
func TestRampedUsersStartInSteps(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: time.Millisecond}
		p := Point{Load: plan.Load{Users: 4, Rate: 40, RampUp: 400 * time.Millisecond}, Stop: plan.Stop{Requests: 8}, Seed: 1}
		RunSessions(context.Background(), p, s, clock, testConversation([]dataset.Session{threeTurns("", 0)}, 1))
		if got, want := s.sends(), ms(5, 105, 105, 205, 205, 205, 305, 305); !slices.Equal(got, want) {
			t.Errorf("sent at %v, want %v", got, want)
		}
	})
}
