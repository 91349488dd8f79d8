package main

// The plan: which runs are measured, in what order, and how they pair.
//
// A round measures m = max(-repeats) runs back to back of each side, in
// this order: the baseline server, the same server again (the identical
// candidate), then the server slowed by each -slowdown. That is how a user
// measures: all repeats of the baseline, then all repeats of the
// candidate, so whatever drifts between the two (a neighbour on the
// machine) is in the data as it would be in CI. From one round:
//
//   - with r repeats per side there are m / r disjoint pairs: repeats
//     [g·r, (g+1)·r) of the baseline against the same repeats of the
//     candidate, g = 0 … m/r − 1 (three one-repeat pairs and one
//     three-repeat pair for -repeats 1,3);
//   - the identical candidate gives the false-alarm pairs, each slowed
//     candidate the power pairs of its slowdown. The baseline runs are
//     shared by every candidate of the round: each cell is an honest
//     estimate on its own, the cells are just not independent of each
//     other.
//
// So -pairs (one-repeat pairs per cell) needs ⌈pairs / m⌉ rounds.

// side is one server configuration measured in every round.
type side struct {
	// Name is "baseline", "identical" or "slower 5%".
	Name string
	// Slowdown scales the simulator's ITL by 1 + Slowdown (0 for the
	// baseline and the identical candidate).
	Slowdown float64
}

// plan is the runs of one calibration.
type plan struct {
	rounds int
	// perSide is m, the runs of each side per round.
	perSide int
	sides   []side
}

// runSpec is one run of the plan.
type runSpec struct {
	Index int // position in measuring order, from 0; seeds derive from it
	Round int
	Side  int // into plan.sides
	Rep   int // 0 … perSide−1
}

func newPlan(c config) plan {
	m := 0
	for _, r := range c.Repeats {
		m = max(m, r)
	}
	sides := []side{{Name: "baseline"}, {Name: "identical"}}
	for _, s := range c.Slowdowns {
		sides = append(sides, side{Name: "slower " + pct(s), Slowdown: s})
	}
	return plan{rounds: (c.Pairs + m - 1) / m, perSide: m, sides: sides}
}

func (p plan) runsPerRound() int { return p.perSide * len(p.sides) }
func (p plan) total() int        { return p.rounds * p.runsPerRound() }

// runs lists every run in measuring order.
func (p plan) runs() []runSpec {
	var out []runSpec
	for round := range p.rounds {
		for s := range p.sides {
			for rep := range p.perSide {
				out = append(out, runSpec{Index: len(out), Round: round, Side: s, Rep: rep})
			}
		}
	}
	return out
}

// groups are the disjoint repeat ranges [start, start+r) that pair up
// within one round for r repeats per side.
func (p plan) groups(r int) [][2]int {
	var out [][2]int
	for start := 0; start+r <= p.perSide; start += r {
		out = append(out, [2]int{start, start + r})
	}
	return out
}
