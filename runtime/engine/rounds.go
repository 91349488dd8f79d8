package engine

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Side is one side of an interleaved A/B point: A the baseline, B the
// candidate.
type Side int

// The sides, in the order their folders and reports name them.
const (
	SideA Side = iota
	SideB
)

// String is the side's folder name: "a" or "b".
func (s Side) String() string {
	if s == SideA {
		return "a"
	}
	return "b"
}

// Round is one side's share of an interleaved A/B point.
type Round struct {
	Side Side
	// Index counts the side's rounds from 0; round i of A is paired with
	// round i of B, sent next to it (ABBA) or with it (duet).
	Index int
	// Slot is when the round runs: slots run one after another, the
	// rounds of one slot (duet's two) at the same instant.
	Slot int
	// Point is the round's share of the point: its stop (a share of the
	// requests or of the duration) and, for a side's first round, the
	// side's warm-up.
	Point Point
	// First is the index, among the point's prompts, of the first one the
	// round sends (cycling on from there): both sides' round i send the
	// same prompts.
	First int
}

// duetLead is how far ahead a duet slot's shared start is set, so both
// sides' rounds are ready to send at that instant.
const duetLead = 20 * time.Millisecond

// PlanRounds cuts p into rounds per side over prompts prompts: the
// requests or the duration split exactly (round i of n gets
// ⌊N(i+1)/n⌋ − ⌊Ni/n⌋, so the shares sum to N), warmup sent before each
// side's first round, and the rounds ordered ABBA (pair k runs A then B
// when k is even, B then A when odd, so a linear drift within pairs
// cancels over two of them) or, for duet, each pair in one slot.
func PlanRounds(p Point, rounds int, duet bool, warmup, prompts int) ([]Round, error) {
	switch {
	case rounds < 2:
		return nil, errors.New("an A/B point needs 2 or more rounds per side")
	case p.Stop.Sessions > 0 || p.Stop.Steady != nil:
		return nil, errors.New("an A/B point stops by a request count or a duration (not sessions or auto)")
	case p.Stop.Requests > 0 && p.Stop.Requests < rounds:
		return nil, errors.New("an A/B point needs at least one request per round")
	case p.Stop.Requests == 0 && p.Stop.Duration <= 0:
		return nil, errors.New("an A/B point needs a request count or a duration")
	}
	var out []Round
	for i := range rounds {
		share := p
		share.Stop.Requests = split(p.Stop.Requests, i, rounds)
		share.Stop.Duration = time.Duration(split(int(p.Stop.Duration), i, rounds))
		share.Warmup = 0
		if i == 0 {
			share.Warmup = warmup
		}
		first := 0
		if p.Stop.Requests > 0 {
			first = p.Stop.Requests * i / rounds
		} else if prompts > 0 {
			first = prompts * i / rounds
		}
		order := []Side{SideA, SideB}
		if i%2 == 1 {
			order = []Side{SideB, SideA}
		}
		for k, side := range order {
			slot := 2*i + k
			if duet {
				slot = i
			}
			out = append(out, Round{Side: side, Index: i, Slot: slot, Point: share, First: first})
		}
	}
	return out, nil
}

// split is round i's share of n over rounds rounds.
func split(n, i, rounds int) int {
	return n*(i+1)/rounds - n*i/rounds
}

// RunRounds runs planned rounds slot by slot. A slot of two rounds
// (duet) starts both at one shared instant on clock (Point.StartAt), so
// their requests meet the same moment of the machine and network. It
// stops at the first error, or when ctx ends.
func RunRounds(ctx context.Context, rounds []Round, clock Clock, run func(context.Context, Round) error) error {
	for start := 0; start < len(rounds); {
		end := start + 1
		for end < len(rounds) && rounds[end].Slot == rounds[start].Slot {
			end++
		}
		if ctx.Err() != nil {
			return nil
		}
		if err := runSlot(ctx, rounds[start:end], clock, run); err != nil {
			return err
		}
		start = end
	}
	return nil
}

func runSlot(ctx context.Context, slot []Round, clock Clock, run func(context.Context, Round) error) error {
	if len(slot) == 1 {
		return run(ctx, slot[0])
	}
	at := time.Unix(0, clock.Now()+int64(duetLead))
	errs := make([]error, len(slot))
	var wg sync.WaitGroup
	for i, r := range slot {
		r.Point.StartAt = at
		wg.Go(func() { errs[i] = run(ctx, r) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
