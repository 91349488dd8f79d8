package calibrate

import (
	"cmp"
	"math"
	"path/filepath"
	"slices"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// gateCell gathers one baseline gate's judgments at one point.
type gateCell struct {
	exp    *plan.Experiment
	label  string
	gate   metrics.Gate
	family int // baseline gates judged with it at the point
	// A/A pairs and slowed pairs: judged, failed, inconclusive, and the
	// judgments that could not be made (an error).
	aa, slowed tally
	// planned and measured MDCs of the A/A pairs.
	planned, measured []float64
}

type tally struct{ Pairs, Failed, Inconclusive, Errors int }

func (t *tally) add(r runtime.GateResult) {
	t.Pairs++
	switch {
	case r.Err != nil:
		t.Errors++
	case !r.Passed:
		t.Failed++
	case r.Comparison != nil && r.Comparison.Verdict == metrics.VerdictInconclusive:
		t.Inconclusive++
	}
}

// outcomes rebuilds a point's repeats as the run reduced them, for its
// experiment's gates (outcomeOf), each once.
type outcomes map[*PointRecords][]*runtime.Outcome

func (o outcomes) of(e *plan.Experiment, p *PointRecords) []*runtime.Outcome {
	if outs, ok := o[p]; ok {
		return outs
	}
	outs := make([]*runtime.Outcome, len(p.Repeats))
	for i, recs := range p.Repeats {
		outs[i] = outcomeOf(e, recs)
	}
	o[p] = outs
	return outs
}

// outcomeOf reduces one repeat's records (completion order) into what
// the gates read: the summary, the dataset components' and replicas'
// summaries and the series baseline gates compare on, as the run's own
// reduction made them (warm-up records are in the summary's
// accumulator, which leaves them out, and not in the series).
func outcomeOf(e *plan.Experiment, recs []metrics.Record) *runtime.Outcome {
	acc := metrics.NewAccumulator(metrics.Options{Goodput: e.Goodput})
	parts := runtime.ComponentAccumulators{Goodput: e.Goodput}
	reps := runtime.ReplicaAccumulators{Goodput: e.Goodput, URLs: e.Endpoint.URLs}
	var series *metrics.Series
	if track := e.BaselineTrack(); len(track) > 0 {
		series, _ = metrics.NewSeries(track...) // Validate checked the names
	}
	for i := range recs {
		r := &recs[i]
		acc.Add(r)
		parts.Add(r)
		reps.Add(r)
		if series != nil && !r.Warmup {
			series.Add(r)
		}
	}
	return &runtime.Outcome{Summary: acc.Summary(), Components: parts.Summaries(), Replicas: reps.Summaries(),
		Goodput: e.Goodput, Series: series}
}

// point finds run r's point of experiment exp with this label.
func (r *Run) point(exp, label string) *PointRecords {
	for i := range r.Points {
		if r.Points[i].Experiment == exp && r.Points[i].Label == label {
			return &r.Points[i]
		}
	}
	return nil
}

// judgeScenario judges every pair of the plan on the stored runs and
// reports each baseline gate.
func judgeScenario(st *Store, scen *runtime.Scenario, pools []Pool, opt ScenarioOptions) (*Report, error) {
	pairing := Pairing{Seed: 1, SameRuns: opt.Pairs, HistoryRuns: 1}
	cells := map[string]*gateCell{}
	var order []string
	outs := outcomes{}
	for _, p := range pools[1:] {
		pairs, err := DrawPairs(st, pairing, rolling, p)
		if err != nil {
			return nil, err
		}
		for _, pr := range pairs {
			base, cand := pr.Base[0], pr.Cand[0]
			for i := range scen.Experiments {
				e := &scen.Experiments[i]
				for j := range cand.Points {
					cp := &cand.Points[j]
					bp := base.point(cp.Experiment, cp.Label)
					if cp.Experiment != e.Name || bp == nil {
						continue
					}
					baseOuts := outs.of(e, bp)
					b := runtime.MeasuredBaseline("the unchanged run before", e.CostPerHour, func(params plan.Params) []*runtime.Outcome {
						if params.Label() == cp.Label {
							return baseOuts
						}
						return nil
					})
					b.FailOnInconclusive = opt.FailOnInconclusive
					candOuts := outs.of(e, cp)
					results := runtime.EvaluateGates(e, b, cp.Params, candOuts...)
					family := 0
					for _, r := range results {
						if r.Gate.Baseline {
							family++
						}
					}
					for _, r := range results {
						if !r.Gate.Baseline {
							continue
						}
						k := e.Name + "\x00" + cp.Label + "\x00" + r.Gate.Source
						c := cells[k]
						if c == nil {
							c = &gateCell{exp: e, label: cp.Label, gate: r.Gate, family: family}
							cells[k] = c
							order = append(order, k)
						}
						if p.Name == poolSlowed {
							c.slowed.add(r)
							continue
						}
						c.aa.add(r)
						if r.Comparison != nil {
							c.measured = append(c.measured, r.Comparison.MDC)
						}
						if mdc, err := r.Gate.PlannedMDC(runtime.OutcomeRuns(r.Gate, baseOuts, e.CostPerHour), len(candOuts), metrics.DefaultJudgeOptions()); err == nil {
							c.planned = append(c.planned, mdc)
						}
					}
				}
			}
		}
	}
	rep := &Report{Scenario: filepath.Base(scen.File), Slowdown: opt.Slowdown.String(), Pairs: opt.Pairs, Runs: st.Len(), Machine: Machine()}
	rep.Requests, rep.FailedRequests = st.requests()
	for _, k := range order {
		rep.Gates = append(rep.Gates, gateReport(st, cells[k], outs))
	}
	return rep, nil
}

// gateReport is one gate's line: its rates, its MDCs, the noise of its
// metric and the sizes that noise asks for.
func gateReport(st *Store, c *gateCell, outs outcomes) GateReport {
	byRun := values(st, c, outs, poolHistory, poolSame)
	same, slowed := flat(byRun), flat(values(st, c, outs, poolSlowed))
	lower := c.gate.Op == "<" || c.gate.Op == "<="
	threshold, change := math.Log(c.gate.Value), math.Log(geomean(slowed)/geomean(same))
	if !lower {
		threshold, change = -threshold, -change
	}
	logs := make([][]float64, len(byRun))
	for i, vs := range byRun {
		for _, v := range vs {
			logs[i] = append(logs[i], math.Log(v))
		}
	}
	between, within := SplitVariance(logs)
	noise := Noise{Between: between, Within: within, Sampling: sampling(st, c, outs), Repeats: c.exp.Repeats, Requests: requests(st, c)}
	if noise.Repeats < 1 {
		noise.Repeats = 1
	}
	alpha := 1 - metrics.DefaultJudgeOptions().Confidence
	rec := Recommend(noise, Target{Threshold: threshold, Change: change, Z: NormalQuantile(1 - alpha/float64(max(c.family, 1)))})
	return GateReport{
		Experiment: c.exp.Name, Point: c.label, Gate: c.gate.Source, Tolerance: c.gate.Tolerance(),
		FalseAlarms: rateOf(c.aa), Detections: rateOf(c.slowed),
		SlowdownChange: Num(math.Expm1(change)), PlannedMDC: Num(Median(c.planned)), MeasuredMDC: Num(Median(c.measured)),
		RunSpread: Num(math.Sqrt(between)), RepeatSpread: Num(math.Sqrt(within)), SamplingShare: Num(noise.Sampling / within),
		FalseAlarmBound: Num(FalseAlarmBound(noise, threshold)),
		Repeats:         noise.Repeats, Requests: noise.Requests, Recommendation: rec,
	}
}

// requests counts the measured requests of every run, and the failed.
func (st *Store) requests() (measured, failed int) {
	for _, r := range st.All() {
		for _, p := range r.Points {
			for _, rep := range p.Repeats {
				for i := range rep {
					if !rep[i].Warmup {
						measured++
						if rep[i].Err != nil {
							failed++
						}
					}
				}
			}
		}
	}
	return measured, failed
}

// values are the gate's statistic in every repeat of the pools' runs,
// run by run.
func values(st *Store, c *gateCell, outs outcomes, pools ...string) [][]float64 {
	var out [][]float64
	for _, name := range pools {
		for _, r := range st.Pool(name, -1) {
			p := r.point(c.exp.Name, c.label)
			if p == nil {
				continue
			}
			var vs []float64
			for _, d := range runtime.OutcomeRuns(c.gate, outs.of(c.exp, p), c.exp.CostPerHour) {
				if v, err := c.gate.MeasureRun(d); err == nil && v > 0 {
					vs = append(vs, v)
				}
			}
			out = append(out, vs)
		}
	}
	return out
}

func flat(runs [][]float64) []float64 {
	var out []float64
	for _, vs := range runs {
		out = append(out, vs...)
	}
	return out
}

// sampling is Noise.Sampling over the unchanged server's repeats: each
// repeat's measured requests, in send order, dealt alternately into two
// halves, the statistic measured on each.
func sampling(st *Store, c *gateCell, outs outcomes) float64 {
	var sum float64
	n := 0
	for _, name := range []string{poolHistory, poolSame} {
		for _, r := range st.Pool(name, -1) {
			p := r.point(c.exp.Name, c.label)
			if p == nil {
				continue
			}
			for _, recs := range p.Repeats {
				a, b := halves(recs)
				va, vb := halfValue(c, a), halfValue(c, b)
				if va > 0 && vb > 0 {
					d := math.Log(va) - math.Log(vb)
					sum += d * d / 4
					n++
				}
			}
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// halves deals a repeat's measured records, in send order, alternately
// into two, each kept in completion order.
func halves(recs []metrics.Record) (a, b []metrics.Record) {
	idx := make([]int, 0, len(recs))
	for i := range recs {
		if !recs[i].Warmup {
			idx = append(idx, i)
		}
	}
	bySent := slices.Clone(idx)
	slices.SortStableFunc(bySent, func(x, y int) int { return cmp.Compare(recs[x].Sent, recs[y].Sent) })
	inA := map[int]bool{}
	for k, i := range bySent {
		inA[i] = k%2 == 0
	}
	for _, i := range idx {
		if inA[i] {
			a = append(a, recs[i])
		} else {
			b = append(b, recs[i])
		}
	}
	return a, b
}

func halfValue(c *gateCell, recs []metrics.Record) float64 {
	d := runtime.OutcomeRuns(c.gate, []*runtime.Outcome{outcomeOf(c.exp, recs)}, c.exp.CostPerHour)
	v, err := c.gate.MeasureRun(d[0])
	if err != nil {
		return math.NaN()
	}
	return v
}

// requests is R₀: the measured requests of a repeat, on average over the
// unchanged runs.
func requests(st *Store, c *gateCell) int {
	total, n := 0, 0
	for _, r := range st.Pool(poolSame, -1) {
		if p := r.point(c.exp.Name, c.label); p != nil {
			for _, recs := range p.Repeats {
				for i := range recs {
					if !recs[i].Warmup {
						total++
					}
				}
				n++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return int(math.Round(float64(total) / float64(n)))
}

// geomean is the geometric mean of v (NaN for none).
func geomean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, x := range v {
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(v)))
}
