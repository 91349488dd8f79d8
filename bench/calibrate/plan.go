package main

import (
	"fmt"
	"slices"
)

// The plan: pools of runs, one pool per server setting, measured
// interleaved, then paired up by the judging (pairs.go).
//
// A pool is a number of runs of one server: the same server as the
// baseline, or one changed by a known amount. Each run is a fresh
// simulator start (its own jitter seed, drift seed and prompts) or a run
// against the real server, so the runs of a pool differ as runs of one
// server differ in CI. The runs of all pools are measured interleaved in
// proportion to their sizes, so a spell of load on the shared machine
// falls on every pool alike and not on one of them.

// effect is how a pool's server differs from the baseline server.
type effect struct {
	// ITL multiplies the simulator's decode-step knobs (ITL and
	// ITLPerSeq), so every gap between tokens grows by that factor
	// whatever the batch; TTFT multiplies its prefill knobs (TTFT and
	// PrefillPerToken), so every time to first token does. 0 means 1.
	ITL, TTFT float64
	// ProxyITL is the share by which the slowdown proxy widens every gap
	// between stream events after the first (a real server, which has no
	// knobs); 0 passes the stream through unchanged.
	ProxyITL float64
}

func (e effect) itl() float64  { return orOne(e.ITL) }
func (e effect) ttft() float64 { return orOne(e.TTFT) }

func orOne(v float64) float64 {
	if v == 0 {
		return 1
	}
	return v
}

// pool is the runs of one server setting.
type pool struct {
	// Name identifies the pool in the store and the tables ("same",
	// "itl+10%").
	Name string
	// Change says in words what was changed and how, for the tables.
	Change string
	Effect effect
	Runs   int
	// Tests are the metrics (gate names) whose detection this pool
	// measures; none for the same server, whose pairs count false alarms.
	Tests []string
	// Multiple is the change made, in tolerances, in each tested
	// metric's bad direction (1: a change equal to the tolerance).
	Multiple float64
	// Shift marks the whole-distribution TTFT shift, judged one run
	// against one.
	Shift bool
	// History marks a real server's baseline history: measured first,
	// and the baseline of every pair.
	History bool
}

// gateNames are the four gated metrics, in the order of the family.
var gateNames = []string{"itl.p50", "itl.p99", "ttft.p99", "output_token_throughput"}

// simPools are the simulator's pools at tolerance tol. A latency change of
// k tolerances scales the knobs behind that metric by 1 + k·tol; a
// throughput drop of k tolerances scales every delay by 1/(1 − k·tol),
// which in a closed loop makes every request that much longer and so
// the output token rate exactly (1 − k·tol) times what it was.
func simPools(c config) []pool {
	tol := c.Tolerance
	ps := []pool{{Name: "same", Change: "none (same server)", Runs: c.SameRuns}}
	for _, k := range []float64{1, 2} {
		itl, ttft, thr := 1+k*tol, 1+k*tol, 1/(1-k*tol)
		ps = append(ps,
			pool{Name: "itl+" + pct(k*tol), Change: fmt.Sprintf("ITL ×%.2f (simulator ITL knobs)", itl),
				Effect: effect{ITL: itl}, Runs: c.EffectRuns, Tests: gateNames[:2], Multiple: k},
			pool{Name: "ttft+" + pct(k*tol), Change: fmt.Sprintf("TTFT ×%.2f (simulator prefill knobs)", ttft),
				Effect: effect{TTFT: ttft}, Runs: c.EffectRuns, Tests: gateNames[2:3], Multiple: k},
			pool{Name: "throughput-" + pct(k*tol), Change: fmt.Sprintf("every delay ×%.3f (throughput ×%.2f)", thr, 1-k*tol),
				Effect: effect{ITL: thr, TTFT: thr}, Runs: c.EffectRuns, Tests: gateNames[3:], Multiple: k})
	}
	return append(ps, pool{Name: "ttft×2", Change: "TTFT ×2 (simulator prefill knobs: the whole distribution)",
		Effect: effect{TTFT: 2}, Runs: c.ShiftRuns, Tests: gateNames[2:3], Shift: true})
}

// realPools are a real server's: a history, then same-server candidates
// and candidates slowed by the proxy. Every run goes through the proxy
// (at share 0 when unchanged), so its own overhead is on both sides.
func realPools(c config) []pool {
	return []pool{
		{Name: "history", Change: "baseline history (proxy at share 0)", Runs: c.HistoryRuns, History: true},
		{Name: "same", Change: "none (same server, proxy at share 0)", Runs: c.SameRuns},
		{Name: "itl+" + pct(c.ProxyITL), Change: fmt.Sprintf("ITL +%s (slowdown proxy)", pct(c.ProxyITL)),
			Effect: effect{ProxyITL: c.ProxyITL}, Runs: c.EffectRuns, Tests: gateNames[:2], Multiple: c.ProxyITL / c.Tolerance},
	}
}

// runSpec is one run of the plan.
type runSpec struct {
	Pool  string
	Index int // within its pool, from 0
	// Seed seeds the simulator's jitter and drift and the prompts; it
	// depends only on the pool's position and Index, so adding runs to a
	// pool later keeps the seeds of the runs already measured.
	Seed int64
}

// seedStride separates the seeds of consecutive pools.
const seedStride = 1_000_000

// order lists every run in measuring order: history pools first, then the
// others interleaved, the i-th run of a pool of n at position (i + ½)/n.
func order(pools []pool, seed int64) []runSpec {
	type slot struct {
		spec runSpec
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
			slots = append(slots, slot{runSpec{Pool: pl.Name, Index: i, Seed: seed + int64(p)*seedStride + int64(i)}, at, p})
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
	out := make([]runSpec, len(slots))
	for i, s := range slots {
		out[i] = s.spec
	}
	return out
}
