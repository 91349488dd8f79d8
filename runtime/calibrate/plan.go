package calibrate

import (
	"slices"

	"github.com/llmbench/llmbench/transport/slowdown"
)

// The plan: pools of runs, one pool per server setting, measured
// interleaved, then paired up by the judging (pairs.go).
//
// A pool is a number of runs of one server: the same server as the
// baseline, or one changed by a known amount. The runs of all pools are
// measured interleaved in proportion to their sizes, so a spell of load
// on the shared machine falls on every pool alike and not on one of them.

// Effect is how a pool's server differs from the baseline server.
type Effect struct {
	// ITL multiplies a simulator's decode-step knobs, TTFT its prefill
	// knobs (bench/calibrate); 0 means 1.
	ITL, TTFT float64
	// Proxy are the slowdown proxy's shares (a real server, which has no
	// knobs); zero passes the stream through unchanged.
	Proxy slowdown.Shares
}

// ITLFactor and TTFTFactor are the simulator knobs' multipliers.
func (e Effect) ITLFactor() float64  { return orOne(e.ITL) }
func (e Effect) TTFTFactor() float64 { return orOne(e.TTFT) }

func orOne(v float64) float64 {
	if v == 0 {
		return 1
	}
	return v
}

// Pool is the runs of one server setting.
type Pool struct {
	// Name identifies the pool in the store and the tables ("same",
	// "itl+10%").
	Name string
	// Change says in words what was changed and how, for the tables.
	Change string
	Effect Effect
	Runs   int
	// Tests are the metrics (gate names) whose detection this pool
	// measures; none for the same server, whose pairs count false alarms.
	Tests []string
	// Multiple is the change made, in tolerances, in each tested
	// metric's bad direction (1: a change equal to the tolerance).
	Multiple float64
	// Shift marks a whole-distribution shift, judged one run against one.
	Shift bool
	// History marks a baseline history: measured first, and the baseline
	// of every pair.
	History bool
}

// seedStride separates the seeds of consecutive pools.
const seedStride = 1_000_000

// Order lists every run in measuring order: history pools first, then the
// others interleaved, the i-th run of a pool of n at position (i + ½)/n.
func Order(pools []Pool, seed int64) []RunSpec {
	type slot struct {
		spec RunSpec
		at   float64
		rank int
	}
	var slots []slot
	for p, pl := range pools {
		for i := range pl.Runs {
			at := (float64(i) + 0.5) / float64(pl.Runs)
			if pl.History {
				at = -1
			}
			slots = append(slots, slot{RunSpec{Pool: pl.Name, Index: i, Seed: seed + int64(p)*seedStride + int64(i)}, at, p})
		}
	}
	slices.SortStableFunc(slots, func(a, b slot) int {
		if a.at != b.at {
			if a.at < b.at {
				return -1
			}
			return 1
		}
		return a.rank - b.rank
	})
	out := make([]RunSpec, len(slots))
	for i, s := range slots {
		out[i] = s.spec
	}
	return out
}
