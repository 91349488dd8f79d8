package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// bodySender is a clockSender that also keeps, per send, the body sent.
type bodySender struct {
	clockSender
	mu2    sync.Mutex
	bodies []string
}

func (s *bodySender) Send(ctx context.Context, body []byte, rec *metrics.Record) {
	s.mu2.Lock()
	s.bodies = append(s.bodies, fmt.Sprintf("%s@%v", body, time.Duration(s.clock.Now()-fakeEpoch.UnixNano())))
	s.mu2.Unlock()
	s.clockSender.Send(ctx, body, rec)
}

// runRoundsOnFakeClock runs the planned rounds of p, both sides on one
// fake clock, each request taking 10ms.
func runRoundsOnFakeClock(t *testing.T, p Point, rounds int, duet bool, warmup int) (a, b []string) {
	t.Helper()
	reqs := make([]Request, 4)
	for i := range reqs {
		reqs[i] = Request{Body: []byte(fmt.Sprintf("p%d", i))}
	}
	plan, err := PlanRounds(p, rounds, duet, warmup, len(reqs))
	if err != nil {
		t.Fatal(err)
	}
	onFakeClock(t, func(clock *fakeClock) {
		senders := [2]*bodySender{{clockSender: clockSender{clock: clock, d: 10 * time.Millisecond}}, {clockSender: clockSender{clock: clock, d: 10 * time.Millisecond}}}
		err := RunRounds(context.Background(), plan, clock, func(ctx context.Context, r Round) error {
			rotated := append(slices.Clone(reqs[r.First%len(reqs):]), reqs[:r.First%len(reqs)]...)
			Run(ctx, r.Point, senders[r.Side], clock, rotated)
			return nil
		})
		if err != nil {
			t.Error(err)
		}
		a, b = senders[0].bodies, senders[1].bodies
	})
	return a, b
}

// TestRoundsABBAByRequests: 8 requests per side in 4 rounds of 2, one
// warm-up per side before its first round, concurrency 1, 10ms per
// request: A B B A A B B A, each side's round i sending the same prompts
// (p0 p1 after the warm-up's p0... cycling from the round's first).
func TestRoundsABBAByRequests(t *testing.T) {
	p := Point{Load: plan.Load{Concurrency: 1}, Stop: plan.Stop{Requests: 8}}
	a, b := runRoundsOnFakeClock(t, p, 4, false, 1)
	wantA := []string{"p0@0s", "p1@10ms", "p2@20ms", // round 0: warm-up + 2
		"p2@80ms", "p3@90ms", // round 1 (after B's rounds 0 and 1)
		"p0@100ms", "p1@110ms", // round 2: first prompt 8·2/4 = 4 ≡ p0
		"p2@160ms", "p3@170ms"} // round 3
	wantB := []string{"p0@30ms", "p1@40ms", "p2@50ms",
		"p2@60ms", "p3@70ms",
		"p0@120ms", "p1@130ms",
		"p2@140ms", "p3@150ms"}
	if !slices.Equal(a, wantA) || !slices.Equal(b, wantB) {
		t.Errorf("A sent %v\nwant   %v\nB sent %v\nwant   %v", a, wantA, b, wantB)
	}
}

// TestRoundsSplitDuration: 100ms per side in 3 rounds is 33.333333ms
// twice and 33.333334ms (split to the nanosecond, summing to 100ms), in ABBA order, each round sending from its own third of the
// prompts.
func TestRoundsSplitDuration(t *testing.T) {
	p := Point{Load: plan.Load{Concurrency: 1}, Stop: plan.Stop{Duration: 100 * time.Millisecond}}
	got, err := PlanRounds(p, 3, false, 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	var desc []string
	for _, r := range got {
		desc = append(desc, fmt.Sprintf("%s%d slot%d %v first%d", r.Side, r.Index, r.Slot, r.Point.Stop.Duration, r.First))
	}
	want := []string{"a0 slot0 33.333333ms first0", "b0 slot1 33.333333ms first0", "b1 slot2 33.333333ms first1", "a1 slot3 33.333333ms first1",
		"a2 slot4 33.333334ms first2", "b2 slot5 33.333334ms first2"}
	if !slices.Equal(desc, want) {
		t.Errorf("rounds %v\nwant %v", desc, want)
	}
}

// TestRoundsDuetSendTogether: duet runs each pair of rounds at one shared
// instant (20ms after the slot begins), so both sides send the same
// prompts at the same planned times.
func TestRoundsDuetSendTogether(t *testing.T) {
	p := Point{Load: plan.Load{Concurrency: 1}, Stop: plan.Stop{Requests: 4}}
	a, b := runRoundsOnFakeClock(t, p, 2, true, 1)
	want := []string{"p0@20ms", "p1@30ms", "p2@40ms", // round 0: warm-up + 2 from 20ms
		"p2@70ms", "p3@80ms"} // round 1: slot starts at 50ms, + 20ms
	if !slices.Equal(a, want) || !slices.Equal(b, want) {
		t.Errorf("A sent %v\nB sent %v\nwant   %v", a, b, want)
	}
}

func TestPlanRoundsRefuses(t *testing.T) {
	for _, tc := range []struct {
		p      Point
		rounds int
	}{
		{Point{Stop: plan.Stop{Requests: 8}}, 1},
		{Point{Stop: plan.Stop{Requests: 3}}, 4},
		{Point{Stop: plan.Stop{Sessions: 3}}, 2},
		{Point{Stop: plan.Stop{}}, 2},
	} {
		if _, err := PlanRounds(tc.p, tc.rounds, false, 0, 1); err == nil {
			t.Errorf("%+v in %d rounds: planned, want refused", tc.p.Stop, tc.rounds)
		}
	}
}
