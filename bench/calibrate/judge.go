package main

import (
	"fmt"
	"math"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/calibrate"
)

// gateFamily is the four baseline gates every pair is judged with, at
// tolerance tol, as a scenario holding exactly those gates is judged at
// one point: together, as one family.
func gateFamily(tol float64) ([]metrics.Gate, error) {
	out := make([]metrics.Gate, len(gateNames))
	for i, name := range gateNames {
		var err error
		if out[i], err = metrics.BaselineGate(name, tol); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// judged is what a pair's judgment says of one gate.
type judged struct {
	Verdict metrics.Verdict
	// MDC is the smallest change the pair could have called real.
	MDC float64
}

// judgePair is the judge every table is made with: the judgment of each
// gate of family (in its order) for one point whose baseline runs are
// base and candidate runs cand — metrics.JudgePoint, what `llmbench run
// --baseline` and `llmbench compare` call.
func judgePair(family []metrics.Gate, base, cand []metrics.RunData) ([]judged, error) {
	runs := func(metrics.Gate) ([]metrics.RunData, []metrics.RunData, error) { return base, cand, nil }
	j := metrics.JudgePoint(family, nil, runs, metrics.DefaultJudgeOptions())
	out := make([]judged, len(j.Gated))
	for i, g := range j.Gated {
		if g.Err != nil {
			return nil, g.Err
		}
		out[i] = judged{Verdict: g.Verdict, MDC: g.MDC}
	}
	return out, nil
}

// tally counts the verdicts of one cell: one setup, one pool.
type tally struct {
	Pairs int
	// Failed counts pairs with any gate a regression: the run would fail.
	Failed int
	// Regression and Inconclusive count each gate's verdicts.
	Regression, Inconclusive map[string]int
	// MDC holds each gate's minimum detectable change of every pair.
	MDC map[string][]float64
	// Distinct counts the distinct runs the pairs were drawn from.
	Distinct int
}

// cell is the tally of one setup on one pool.
type cell struct {
	Setup setup
	Pool  pool
	Tally tally
}

// results are every cell, in table order, and each pool's measured change
// of each gated metric.
type results struct {
	Cells []cell
	// Change is, per pool and metric, the geometric mean of the metric
	// over the pool's runs relative to the unchanged server's, minus 1.
	Change map[string]map[string]float64
}

// judgeAll judges every cell of the plan on the stored runs.
func judgeAll(st *store, c config) (*results, error) {
	family, err := gateFamily(c.Tolerance)
	if err != nil {
		return nil, err
	}
	cache := map[*storedRun]metrics.RunData{}
	data := func(rs []*storedRun) []metrics.RunData {
		out := make([]metrics.RunData, len(rs))
		for i, r := range rs {
			d, ok := cache[r]
			if !ok {
				d = data(r)
				cache[r] = d
			}
			out[i] = d
		}
		return out
	}
	res := &results{Change: map[string]map[string]float64{}}
	pools := c.pools()
	for _, s := range setupsOf(c) {
		for _, p := range pools {
			if !applies(s, p) {
				continue
			}
			pairs, err := drawPairs(st, c, s, p)
			if err != nil {
				return nil, err
			}
			t := tally{Regression: map[string]int{}, Inconclusive: map[string]int{}, MDC: map[string][]float64{}, Distinct: calibrate.DistinctRuns(pairs)}
			for _, pr := range pairs {
				vs, err := judgePair(family, data(pr.Base), data(pr.Cand))
				if err != nil {
					return nil, fmt.Errorf("%s, %s: %w", s.Name, p.Name, err)
				}
				t.add(vs)
			}
			res.Cells = append(res.Cells, cell{Setup: s, Pool: p, Tally: t})
		}
	}
	for _, p := range pools {
		if !p.History {
			res.Change[p.Name] = measuredChange(st, c, family, p, data)
		}
	}
	return res, nil
}

func (t *tally) add(js []judged) {
	t.Pairs++
	failed := false
	for i, j := range js {
		name := gateNames[i]
		t.MDC[name] = append(t.MDC[name], j.MDC)
		switch j.Verdict {
		case metrics.VerdictRegression:
			t.Regression[name]++
			failed = true
		case metrics.VerdictInconclusive:
			t.Inconclusive[name]++
		}
	}
	if failed {
		t.Failed++
	}
}

// measuredChange is what the pool's change really did to each gated
// metric: the geometric mean of the metric over its runs against that of
// the same-server runs, which were measured interleaved with them (a
// real server's history, measured before both, is left out).
func measuredChange(st *store, c config, family []metrics.Gate, p pool, data func([]*storedRun) []metrics.RunData) map[string]float64 {
	ref := data(st.Pool("same", c.SameRuns))
	out := map[string]float64{}
	for i, g := range family {
		out[gateNames[i]] = geomean(g, data(st.Pool(p.Name, p.Runs)))/geomean(g, ref) - 1
	}
	return out
}

// geomean is the geometric mean of g's statistic over runs (NaN when a
// run has none).
func geomean(g metrics.Gate, runs []metrics.RunData) float64 {
	var sum float64
	for _, r := range runs {
		v, err := g.MeasureRun(r)
		if err != nil || !(v > 0) {
			return math.NaN()
		}
		sum += math.Log(v)
	}
	return math.Exp(sum / float64(len(runs)))
}
