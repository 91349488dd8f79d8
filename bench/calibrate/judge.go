package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/comparison"
)

// cellKey is one cell of the table: a candidate side, a number of repeats
// per side and a tolerance.
type cellKey struct {
	Side, Repeats int
	Tolerance     float64
}

// tally counts what compare concluded over the pairs of one cell.
type tally struct {
	Pairs int
	// Failed counts pairs `llmbench compare` would exit 1 for: some metric
	// a regression after Holm.
	Failed int
	// FailedNoHolm counts pairs where some metric's own interval says
	// regression (what compare would say without Holm).
	FailedNoHolm int
	// Metric and MetricNoHolm count regression verdicts per metric, after
	// and before Holm.
	Metric, MetricNoHolm map[string]int
	// ITL counts pairs with itl.p50 or itl.p99 a regression after Holm.
	ITL int
	// Methods are the interval methods compare used, e.g.
	// "moving-block-bootstrap".
	Methods map[string]bool
	// Spread holds, per metric, what explains a false-alarm rate: the
	// measured log ratios and the widths of their intervals.
	Spread map[string]*spread
}

// spread is one metric's log ratios ln(candidate/baseline) over a cell's
// pairs and the half-widths of their log intervals. For identical pairs
// the standard deviation of the log ratios is the real noise of the
// comparison; an interval method is calibrated when its half-width is
// about 1.96 times that, and too narrow (false alarms) when it is less.
type spread struct {
	LogRatio, LogHalfWidth []float64
	// Covers counts intervals that contain a ratio of 1.
	Covers int
}

func (s *spread) add(ri metrics.RatioInterval) {
	if !(ri.Ratio > 0 && ri.Low > 0 && ri.High > ri.Low) {
		return // an exact (0 = 0) or degenerate interval says nothing of the noise
	}
	s.LogRatio = append(s.LogRatio, math.Log(ri.Ratio))
	s.LogHalfWidth = append(s.LogHalfWidth, (math.Log(ri.High)-math.Log(ri.Low))/2)
	if ri.Low <= 1 && ri.High >= 1 {
		s.Covers++
	}
}

// sd is the sample standard deviation of the log ratios.
func (s *spread) sd() float64 {
	n := float64(len(s.LogRatio))
	if n < 2 {
		return math.NaN()
	}
	var sum, sq float64
	for _, v := range s.LogRatio {
		sum += v
	}
	mean := sum / n
	for _, v := range s.LogRatio {
		sq += (v - mean) * (v - mean)
	}
	return math.Sqrt(sq / (n - 1))
}

// robustSD is 1.4826 × the median absolute deviation of the log ratios
// from their median: the standard deviation they would have without
// their outliers (one stalled run moves a p99 by tens of percent).
func (s *spread) robustSD() float64 {
	if len(s.LogRatio) < 2 {
		return math.NaN()
	}
	med := median(s.LogRatio)
	dev := make([]float64, len(s.LogRatio))
	for i, v := range s.LogRatio {
		dev[i] = math.Abs(v - med)
	}
	return 1.4826 * median(dev)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// meanRatio is the geometric mean ratio.
func (s *spread) meanRatio() float64 { return math.Exp(mean(s.LogRatio)) }

func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}

// results are the tallies of every cell and the metrics judged.
type results struct {
	Cells   map[cellKey]*tally
	Metrics []string
}

// judgeAll pairs the runs of every complete round as the plan says and
// judges each pair at each tolerance with comparison.Build, the function
// `llmbench compare` calls: comparison.DefaultMetrics, Holm across them,
// metrics.DefaultJudgeOptions (one-sided 95%, bootstrap B = 2000, seed 1).
func judgeAll(st *store, c config) (*results, error) {
	if st.Rounds == 0 {
		return nil, fmt.Errorf("no complete round to judge")
	}
	res := &results{Cells: map[cellKey]*tally{}, Metrics: comparison.DefaultMetrics}
	cache := map[int]metrics.RunData{}
	runData := func(r *storedRun) metrics.RunData {
		if d, ok := cache[r.Spec.Index]; ok {
			return d
		}
		d := r.data()
		cache[r.Spec.Index] = d
		return d
	}
	p := plan{rounds: st.Rounds, perSide: st.PerSide, sides: st.Sides}
	for round := range st.Rounds {
		for s := 1; s < len(st.Sides); s++ {
			for _, r := range c.Repeats {
				for _, g := range p.groups(r) {
					var base, cand []metrics.RunData
					for rep := g[0]; rep < g[1]; rep++ {
						base = append(base, runData(st.run(round, 0, rep)))
						cand = append(cand, runData(st.run(round, s, rep)))
					}
					pair := comparison.Pair{Experiment: "calibrate", Label: fmt.Sprintf("concurrency%d", st.Config.Concurrency),
						Baseline: base, Candidate: cand}
					for _, tol := range c.Tolerances {
						rep, err := judgePair(pair, tol)
						if err != nil {
							return nil, fmt.Errorf("round %d, %s, %d repeats: %w", round+1, st.Sides[s].Name, r, err)
						}
						key := cellKey{Side: s, Repeats: r, Tolerance: tol}
						if res.Cells[key] == nil {
							res.Cells[key] = &tally{Metric: map[string]int{}, MetricNoHolm: map[string]int{}, Methods: map[string]bool{}, Spread: map[string]*spread{}}
						}
						res.Cells[key].add(rep)
					}
				}
			}
		}
	}
	return res, nil
}

// judgePair is `llmbench compare BASE CAND --max-regression tol` on one
// matched point.
func judgePair(p comparison.Pair, tol float64) (*comparison.Report, error) {
	opt := comparison.DefaultOptions()
	opt.Tolerance = tol
	return comparison.Build("baseline", "candidate", []comparison.Pair{p}, opt)
}

// add counts one pair's report.
func (t *tally) add(r *comparison.Report) {
	t.Pairs++
	if len(r.Regressions()) > 0 {
		t.Failed++
	}
	itl, noHolm := false, false
	for _, pt := range r.Points {
		for _, m := range pt.Metrics {
			t.Methods[string(m.Interval.Method)] = true
			if t.Spread[m.Metric] == nil {
				t.Spread[m.Metric] = &spread{}
			}
			t.Spread[m.Metric].add(m.Interval)
			if m.Verdict == metrics.VerdictRegression {
				t.Metric[m.Metric]++
				itl = itl || strings.HasPrefix(m.Metric, "itl.")
			}
			// The metric's own verdict, before the family's Holm step.
			if m.Verdict == metrics.VerdictRegression || strings.HasPrefix(m.Adjustment, string(metrics.VerdictRegression)+" ") {
				t.MetricNoHolm[m.Metric]++
				noHolm = true
			}
		}
	}
	if itl {
		t.ITL++
	}
	if noHolm {
		t.FailedNoHolm++
	}
}
