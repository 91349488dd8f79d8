package calibrate

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
)

// Setup is how many runs each side of a judged pair has.
type Setup struct {
	Name       string
	Base, Cand int
	// Rolling takes as the baseline the Base unchanged runs measured last
	// before the candidate (a real server), as CI keeps the last runs of
	// the main branch, instead of one history for every candidate.
	Rolling bool
}

// Pairing is what drawing pairs needs of a calibration.
type Pairing struct {
	// Seed seeds every draw, so judging the same runs again draws the
	// same pairs.
	Seed int64
	// SameRuns and HistoryRuns are the sizes of the pools "same" (the
	// unchanged server) and "history" (a real server's baseline runs).
	SameRuns, HistoryRuns int
	// Drawn pairs runs drawn at random from the pools (a simulator, whose
	// every run is an independent fresh start), Pairs of them for each
	// false-alarm cell; otherwise candidates are judged against the
	// history (a real server).
	Drawn bool
	Pairs int
}

// Pair is one judged point: its baseline runs and its candidate runs.
type Pair struct {
	Base, Cand []*Run
}

// DrawPairs are the pairs of setup s on pool p, drawn with a generator
// seeded by the calibration's seed and the cell, so judging the same runs
// again draws the same pairs.
//
//   - Rolling: every run of p against the s.Base unchanged runs (history
//     or same-server) measured last before it.
//   - Not Drawn: every run of p is a candidate against the whole history.
//   - The shift: each run of p against the unchanged run measured at the
//     same point of the schedule (Order spreads both pools over it), so
//     the two sides of a pair met the same load on the machine; the pairs
//     share no run.
//   - The unchanged server: c.Pairs pairs, each s.Base + s.Cand distinct
//     runs of the pool drawn at random; different pairs share runs.
//   - A changed server with one candidate run: each of its runs once,
//     against s.Base distinct unchanged runs drawn at random.
//   - A changed server with s.Cand > 1: as many pairs as it has runs, each
//     s.Cand distinct runs of it against s.Base distinct unchanged ones.
func DrawPairs(st *Store, c Pairing, s Setup, p Pool) ([]Pair, error) {
	runs := st.Pool(p.Name, p.Runs)
	same := st.Pool("same", c.SameRuns)
	rng := rand.New(rand.NewPCG(uint64(c.Seed), cellSeed(s, p)))
	need := func(pool string, have, want int) error {
		if have < want {
			return fmt.Errorf("%s, pool %s: %d runs measured, %d needed (measure first, or give the sizes the store was measured with)", s.Name, pool, have, want)
		}
		return nil
	}
	var out []Pair
	switch {
	case s.Rolling:
		unchanged := append(st.Pool("history", c.HistoryRuns), same...)
		slices.SortFunc(unchanged, func(a, b *Run) int { return a.Started.Compare(b.Started) })
		for _, r := range runs {
			k := 0
			for k < len(unchanged) && unchanged[k].Started.Before(r.Started) {
				k++
			}
			if err := need("history and same", k, s.Base); err != nil {
				return nil, err
			}
			out = append(out, Pair{Base: unchanged[k-s.Base : k], Cand: []*Run{r}})
		}
	case !c.Drawn:
		hist := st.Pool("history", c.HistoryRuns)
		if err := need("history", len(hist), s.Base); err != nil {
			return nil, err
		}
		for _, r := range runs {
			out = append(out, Pair{Base: hist, Cand: []*Run{r}})
		}
	case p.Shift:
		if err := need("same", len(same), len(runs)); err != nil {
			return nil, err
		}
		for i, r := range runs {
			at := (float64(i) + 0.5) / float64(len(runs)) // r's place in the schedule
			out = append(out, Pair{Base: []*Run{same[int(at*float64(len(same)))]}, Cand: []*Run{r}})
		}
	case len(p.Tests) == 0:
		if err := need(p.Name, len(runs), s.Base+s.Cand); err != nil {
			return nil, err
		}
		for range c.Pairs {
			d := pick(rng, runs, s.Base+s.Cand)
			out = append(out, Pair{Base: d[:s.Base], Cand: d[s.Base:]})
		}
	default:
		if err := need("same", len(same), s.Base); err != nil {
			return nil, err
		}
		if err := need(p.Name, len(runs), s.Cand); err != nil {
			return nil, err
		}
		for _, r := range runs {
			cand := []*Run{r}
			if s.Cand > 1 {
				cand = pick(rng, runs, s.Cand)
			}
			out = append(out, Pair{Base: pick(rng, same, s.Base), Cand: cand})
		}
	}
	return out, nil
}

// pick draws k distinct runs of rs.
func pick(rng *rand.Rand, rs []*Run, k int) []*Run {
	out := make([]*Run, k)
	for i, j := range rng.Perm(len(rs))[:k] {
		out[i] = rs[j]
	}
	return out
}

func cellSeed(s Setup, p Pool) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s.Name + "\x00" + p.Name))
	return h.Sum64()
}

// DistinctRuns counts the runs the pairs use.
func DistinctRuns(ps []Pair) int {
	seen := map[*Run]bool{}
	for _, p := range ps {
		for _, r := range append(append([]*Run{}, p.Base...), p.Cand...) {
			seen[r] = true
		}
	}
	return len(seen)
}
