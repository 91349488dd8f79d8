package runtime

import (
	"fmt"
	"slices"

	"github.com/llmbench/llmbench/metrics"
)

// saturation grows the load until the saturation rule holds or the limit
// is reached (SPEC §6 until_saturation), each next load chosen from the
// points measured so far.
func (r *experimentRun) saturation() error {
	s := r.e.Sweep.Saturation
	sat := s.driver()
	rule := sat.Rule
	var measured []metrics.LoadPoint
	for r.ctx.Err() == nil {
		load, done, reason := sat.Next(measured)
		if done {
			r.decided.Saturation = &SaturationResult{Point: indexOfLoad(measured, load), Reason: reason, Source: SaturationBySweep}
			_, _, r.decided.Saturation.Saturated = rule.Check(measured, s.Over)
			return nil
		}
		if err := r.measure(r.e.base().with(s.Over, load)); err != nil {
			return err
		}
		measured = append(measured, r.loadPoint(len(r.res.Points)-1, s.Over))
	}
	return nil
}

// search bisects for the largest load meeting the gate (SPEC §6 search).
func (r *experimentRun) search() error {
	s := r.e.Sweep.Search
	srch := s.driver()
	var tried []metrics.LoadPoint
	for r.ctx.Err() == nil {
		load, done := srch.Next(tried)
		if done {
			best, ok := srch.Result(tried)
			r.decided.Search = &SearchResult{Found: ok, Best: best, Point: indexOfLoad(tried, best)}
			return nil
		}
		if err := r.measure(r.e.base().with(s.Over, load)); err != nil {
			return err
		}
		tried = append(tried, r.loadPoint(len(r.res.Points)-1, s.Over))
	}
	return nil
}

// driver is the step-by-step saturation driver for this sweep.
func (s *Saturation) driver() metrics.Saturator {
	rule := metrics.SaturationRule{Growth: s.Growth, TTFTFactor: s.TTFTFactor}
	return metrics.Saturator{Start: s.Start, Factor: s.Factor, Limit: s.Limit,
		Integer: s.Over == metrics.ParamConcurrency, Rule: rule, Param: s.Over}
}

// driver is the bisection driver for this search.
func (s *Search) driver() metrics.Searcher {
	return metrics.Searcher{Gate: s.Gate, Lo: s.Lo, Hi: s.Hi, Precision: s.Precision, Integer: s.Over == metrics.ParamConcurrency}
}

// loadPoint is point i as the capacity analysis sees it.
func (r *experimentRun) loadPoint(i int, param string) metrics.LoadPoint {
	p := r.res.Points[i]
	return metrics.LoadPoint{Load: p.Params[param], Summary: &p.Outcome.Summary}
}

// indexOfLoad finds the point measured at load, -1 if none was.
func indexOfLoad(points []metrics.LoadPoint, load float64) int {
	return slices.IndexFunc(points, func(p metrics.LoadPoint) bool { return p.Load == load })
}

// describeAdaptive renders an adaptive sweep for plans.
func (s *Sweep) describeAdaptive() string {
	if s.Saturation != nil {
		t := s.Saturation
		return fmt.Sprintf("until_saturation(over=%s, start=%g, factor=%g, limit=%g, growth=%g%%, ttft_factor=%g)",
			t.Over, t.Start, t.Factor, t.Limit, 100*t.Growth, t.TTFTFactor)
	}
	t := s.Search
	return fmt.Sprintf("search(%q, over=%s, lo=%g, hi=%g, precision=%g%%)", t.Gate.Source, t.Over, t.Lo, t.Hi, 100*t.Precision)
}

// AdaptiveDescription describes how an adaptive experiment chooses its
// points, for `llmbench check`; "" for other experiments.
func (e *Experiment) AdaptiveDescription() string {
	if !e.Adaptive() {
		return ""
	}
	return e.Sweep.describeAdaptive()
}
