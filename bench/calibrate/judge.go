package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/llmbench/llmbench/metrics"
)

// gateFamily is the four baseline gates every pair is judged with, at
// tolerance tol, as a scenario holding exactly those gates is judged at
// one point: together, as one family.
func gateFamily(tol float64) ([]metrics.Gate, error) {
	worse := strconv.FormatFloat(1+tol, 'f', -1, 64)
	better := strconv.FormatFloat(1-tol, 'f', -1, 64)
	var out []metrics.Gate
	for _, name := range gateNames {
		src := name + " <= baseline * " + worse
		if name == "output_token_throughput" {
			src = name + " >= baseline * " + better
		}
		g, err := metrics.ParseGate(src)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// judgePair is the judge every table is made with: the verdict of each
// gate of family (in its order) for one point whose baseline runs are base
// and candidate runs cand. It is `llmbench run --baseline` judging a
// point's baseline gates: each gate compared (Gate.CompareWithBaseline),
// then the gates confirmed together (Holm, JudgeFamily).
func judgePair(family []metrics.Gate, base, cand []metrics.RunData) ([]metrics.Verdict, error) {
	opt := metrics.DefaultCompareOptions()
	cs := make([]metrics.Comparison, len(family))
	for i, g := range family {
		bs, err := g.Sample(base)
		if err != nil {
			return nil, err
		}
		csample, err := g.Sample(cand)
		if err != nil {
			return nil, err
		}
		if cs[i], err = g.CompareWithBaseline(bs, csample, opt); err != nil {
			return nil, err
		}
	}
	out := make([]metrics.Verdict, len(family))
	for i, f := range metrics.JudgeFamily(cs, opt.Confidence) {
		out[i] = f.Verdict
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
				d = r.data()
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
			if !s.applies(p) {
				continue
			}
			pairs, err := drawPairs(st, c, s, p)
			if err != nil {
				return nil, err
			}
			t := tally{Regression: map[string]int{}, Inconclusive: map[string]int{}, Distinct: distinctRuns(pairs)}
			for _, pr := range pairs {
				vs, err := judgePair(family, data(pr.Base), data(pr.Cand))
				if err != nil {
					return nil, fmt.Errorf("%s, %s: %w", s.Name, p.Name, err)
				}
				t.add(family, vs)
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

func (t *tally) add(family []metrics.Gate, vs []metrics.Verdict) {
	t.Pairs++
	failed := false
	for i, v := range vs {
		name := gateNames[i]
		switch v {
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
// the unchanged server's runs (the history's too on a real server).
func measuredChange(st *store, c config, family []metrics.Gate, p pool, data func([]*storedRun) []metrics.RunData) map[string]float64 {
	ref := append(st.pool("history", c.HistoryRuns), st.pool("same", c.SameRuns)...)
	if c.isSim() {
		ref = st.pool("same", c.SameRuns)
	}
	out := map[string]float64{}
	for i, g := range family {
		out[gateNames[i]] = geomean(g, data(st.pool(p.Name, p.Runs)))/geomean(g, data(ref)) - 1
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
