package main

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
)

// setup is how many runs each side of a judged pair has.
type setup struct {
	Name       string
	Base, Cand int
	// Rolling takes as the baseline the Base unchanged runs measured last
	// before the candidate (a real server), as CI keeps the last runs of
	// the main branch, instead of one history for every candidate.
	Rolling bool
}

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
func (s setup) applies(p pool) bool {
	return !p.History && p.Shift == (s == single)
}

// pair is one judged point: its baseline runs and its candidate runs.
type pair struct {
	Base, Cand []*storedRun
}

// drawPairs are the pairs of setup s on pool p, drawn with a generator
// seeded by the calibration's seed and the cell, so judging the same runs
// again draws the same pairs.
//
//   - A real server: every run of p is a candidate against the whole
//     history, or (Rolling) against the s.Base unchanged runs (history
//     or same-server candidates) measured last before it.
//   - The shift: each run of p against the unchanged run measured at the
//     same point of the schedule (order spreads both pools over it), so
//     the two sides of a pair met the same load on the machine; the pairs
//     share no run.
//   - The unchanged server: c.Pairs pairs, each s.Base + s.Cand distinct
//     runs of the pool drawn at random; different pairs share runs.
//   - A changed server with one candidate run: each of its runs once,
//     against s.Base distinct unchanged runs drawn at random.
//   - A changed server with s.Cand > 1: as many pairs as it has runs, each
//     s.Cand distinct runs of it against s.Base distinct unchanged ones.
func drawPairs(st *store, c config, s setup, p pool) ([]pair, error) {
	runs := st.pool(p.Name, p.Runs)
	same := st.pool("same", c.SameRuns)
	rng := rand.New(rand.NewPCG(uint64(c.Seed), cellSeed(s, p)))
	need := func(pool string, have, want int) error {
		if have < want {
			return fmt.Errorf("%s, pool %s: %d runs measured, %d needed (measure first, or give the sizes the store was measured with)", s.Name, pool, have, want)
		}
		return nil
	}
	var out []pair
	switch {
	case s.Rolling:
		unchanged := append(st.pool("history", c.HistoryRuns), same...)
		slices.SortFunc(unchanged, func(a, b *storedRun) int { return a.Started.Compare(b.Started) })
		for _, r := range runs {
			k := 0
			for k < len(unchanged) && unchanged[k].Started.Before(r.Started) {
				k++
			}
			if err := need("history and same", k, s.Base); err != nil {
				return nil, err
			}
			out = append(out, pair{Base: unchanged[k-s.Base : k], Cand: []*storedRun{r}})
		}
	case !c.isSim():
		hist := st.pool("history", c.HistoryRuns)
		if err := need("history", len(hist), s.Base); err != nil {
			return nil, err
		}
		for _, r := range runs {
			out = append(out, pair{Base: hist, Cand: []*storedRun{r}})
		}
	case p.Shift:
		if err := need("same", len(same), len(runs)); err != nil {
			return nil, err
		}
		for i, r := range runs {
			at := (float64(i) + 0.5) / float64(len(runs)) // r's place in the schedule
			out = append(out, pair{Base: []*storedRun{same[int(at*float64(len(same)))]}, Cand: []*storedRun{r}})
		}
	case len(p.Tests) == 0:
		if err := need(p.Name, len(runs), s.Base+s.Cand); err != nil {
			return nil, err
		}
		for range c.Pairs {
			d := pick(rng, runs, s.Base+s.Cand)
			out = append(out, pair{Base: d[:s.Base], Cand: d[s.Base:]})
		}
	default:
		if err := need("same", len(same), s.Base); err != nil {
			return nil, err
		}
		if err := need(p.Name, len(runs), s.Cand); err != nil {
			return nil, err
		}
		for _, r := range runs {
			cand := []*storedRun{r}
			if s.Cand > 1 {
				cand = pick(rng, runs, s.Cand)
			}
			out = append(out, pair{Base: pick(rng, same, s.Base), Cand: cand})
		}
	}
	return out, nil
}

// pick draws k distinct runs of rs.
func pick(rng *rand.Rand, rs []*storedRun, k int) []*storedRun {
	out := make([]*storedRun, k)
	for i, j := range rng.Perm(len(rs))[:k] {
		out[i] = rs[j]
	}
	return out
}

func cellSeed(s setup, p pool) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s.Name + "\x00" + p.Name))
	return h.Sum64()
}

// distinctRuns counts the runs the pairs use.
func distinctRuns(ps []pair) int {
	seen := map[*storedRun]bool{}
	for _, p := range ps {
		for _, r := range append(append([]*storedRun{}, p.Base...), p.Cand...) {
			seen[r] = true
		}
	}
	return len(seen)
}
