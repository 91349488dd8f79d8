package main

import (
	"fmt"

	"github.com/llmbench/llmbench/runtime/calibrate"
)

var (
	// history5 is the default CI setup: the last 5 runs of the main
	// branch as the baseline, one run of the change.
	history5 = setup{Name: "5-run history vs 1 run", Base: 5, Cand: 1}
	// repeats3 is repeats = 3 on both sides.
	repeats3 = setup{Name: "3 repeats vs 3 repeats", Base: 3, Cand: 3}
	// recipe is what docs/ci.md's recipes run with the shipped
	// scenarios/ci-gate.star (repeats = 3): the last 5 main runs of 3
	// repeats each, 15 runs, against the change's 3. Every simulator run
	// is a fresh start, so its 15 runs are independent; a CI job's repeats
	// share its machine, so this is the best case of that setup.
	recipe = setup{Name: "5-run history of 3 repeats vs 3 repeats (docs/ci.md's recipe)", Base: 15, Cand: 3}
	// single is one run per side, the whole-distribution shift's setup.
	single = setup{Name: "1 run vs 1 run", Base: 1, Cand: 1}
)

// setupsOf are the setups judged: the simulator's three, or a real
// server's history setup (its history is the runs it has).
func setupsOf(c config) []setup {
	if !c.isSim() {
		return []setup{
			{Name: fmt.Sprintf("%d-run history vs 1 run", c.HistoryRuns), Base: c.HistoryRuns, Cand: 1},
			{Name: fmt.Sprintf("last %d unchanged runs vs 1 run", c.HistoryRuns), Base: c.HistoryRuns, Cand: 1, Rolling: true},
		}
	}
	return []setup{history5, repeats3, recipe, single}
}

// applies says whether s is judged on pool p: the shift only one run
// against one, everything else in the other setups, never a history.
func applies(s setup, p pool) bool {
	return !p.History && p.Shift == (s == single)
}

// drawPairs are the pairs of setup s on pool p (calibrate.DrawPairs):
// drawn at random from independent simulator starts, or against a real
// server's history.
func drawPairs(st *store, c config, s setup, p pool) ([]pair, error) {
	return calibrate.DrawPairs(st, calibrate.Pairing{Seed: c.Seed, SameRuns: c.SameRuns, HistoryRuns: c.HistoryRuns, Drawn: c.isSim(), Pairs: c.Pairs}, s, p)
}
