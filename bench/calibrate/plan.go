package main

import (
	"fmt"

	"github.com/llmbench/llmbench/runtime/calibrate"
	"github.com/llmbench/llmbench/transport/slowdown"
)

// The plan: pools of runs (calibrate.Pool), one pool per server setting,
// measured interleaved (calibrate.Order), then paired up by the judging
// (pairs.go). Each run is a fresh simulator start (its own jitter seed,
// drift seed and prompts) or a run against the real server, so the runs
// of a pool differ as runs of one server differ in CI.

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
			pool{Name: "itl+" + calibrate.Pct(k*tol), Change: fmt.Sprintf("ITL ×%.2f (simulator ITL knobs)", itl),
				Effect: effect{ITL: itl}, Runs: c.EffectRuns, Tests: gateNames[:2], Multiple: k},
			pool{Name: "ttft+" + calibrate.Pct(k*tol), Change: fmt.Sprintf("TTFT ×%.2f (simulator prefill knobs)", ttft),
				Effect: effect{TTFT: ttft}, Runs: c.EffectRuns, Tests: gateNames[2:3], Multiple: k},
			pool{Name: "throughput-" + calibrate.Pct(k*tol), Change: fmt.Sprintf("every delay ×%.3f (throughput ×%.2f)", thr, 1-k*tol),
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
		{Name: "itl+" + calibrate.Pct(c.ProxyITL), Change: fmt.Sprintf("ITL +%s (slowdown proxy)", calibrate.Pct(c.ProxyITL)),
			Effect: effect{Proxy: slowdown.Shares{ITL: c.ProxyITL}}, Runs: c.EffectRuns, Tests: gateNames[:2], Multiple: c.ProxyITL / c.Tolerance},
	}
}
