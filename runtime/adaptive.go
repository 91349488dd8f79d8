package runtime

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/engine"
)

// saturation grows the load until the saturation rule holds or the limit
// is reached (SPEC §6 until_saturation), each next load chosen from the
// points measured so far.
func (r *experimentRun) saturation() error {
	s := r.e.Sweep.Saturation
	var measured []metrics.LoadPoint
	for r.ctx.Err() == nil {
		load, verdict := s.decide(measured)
		if verdict != nil {
			r.decided.Saturation = verdict
			return nil
		}
		if err := r.measure(r.e.base().with(s.Over, load)); err != nil {
			return err
		}
		measured = append(measured, loadPoint(&r.res.Points[len(r.res.Points)-1], s.Over, nil))
	}
	return nil
}

// decide is the next load to measure after measured (in run order), or
// the sweep's verdict when it would measure no more.
func (s *Saturation) decide(measured []metrics.LoadPoint) (float64, *SaturationResult) {
	sat := s.driver()
	load, done, reason := sat.Next(measured)
	if !done {
		return load, nil
	}
	v := &SaturationResult{Point: indexOfLoad(measured, load), Reason: reason, Source: SaturationBySweep}
	_, _, v.Saturated = sat.Rule.Check(measured, s.Over)
	return load, v
}

// search bisects for the largest load meeting the gate (SPEC §6 search).
func (r *experimentRun) search() error {
	s := r.e.Sweep.Search
	var tried []metrics.LoadPoint
	for r.ctx.Err() == nil {
		load, found := s.decide(tried)
		if found != nil {
			r.decided.Search = found
			return nil
		}
		if err := r.measure(r.e.base().with(s.Over, load)); err != nil {
			return err
		}
		tried = append(tried, loadPoint(&r.res.Points[len(r.res.Points)-1], s.Over, &s.Gate))
	}
	return nil
}

// decide is the next load to probe after tried (in run order), or what
// the search found when it would probe no more.
func (s *Search) decide(tried []metrics.LoadPoint) (float64, *SearchResult) {
	srch := s.driver()
	load, done := srch.Next(tried)
	if !done {
		return load, nil
	}
	best, ok := srch.Result(tried)
	return load, &SearchResult{Found: ok, Best: best, Point: indexOfLoad(tried, best)}
}

// ReplayDecisions is what an adaptive sweep decided, recomputed from its
// points in run order: the drivers are pure functions of the summaries,
// so points read back exactly (a stored run) give back the run's
// verdict. It is nil for a grid, and for a sweep that had not decided
// yet when it was interrupted.
func ReplayDecisions(e *Experiment, points []PointResult) *Capacity {
	if !e.Adaptive() || slices.ContainsFunc(points, func(p PointResult) bool { return p.Outcome.Interrupted }) {
		return nil // an interrupted sweep decided nothing: the default rule judges its points
	}
	lps := make([]metrics.LoadPoint, len(points))
	c := &Capacity{}
	if s := e.Sweep.Saturation; s != nil {
		for i := range lps {
			lps[i] = loadPoint(&points[i], s.Over, nil)
		}
		_, c.Saturation = s.decide(lps)
	} else {
		s := e.Sweep.Search
		for i := range lps {
			lps[i] = loadPoint(&points[i], s.Over, &s.Gate)
		}
		_, c.Search = s.decide(lps)
	}
	return c
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

// loadPoint is p as the capacity drivers see it along param: the summary
// of the component gate judges, the whole point's otherwise.
func loadPoint(p *PointResult, param string, gate *metrics.Gate) metrics.LoadPoint {
	lp := metrics.LoadPoint{Load: p.Params[param], Summary: &p.Outcome.Summary}
	if gate != nil {
		lp.Summary = p.Outcome.gateSummary(*gate)
	}
	return lp
}

// indexOfLoad finds the point measured at load, -1 if none was.
func indexOfLoad(points []metrics.LoadPoint, load float64) int {
	return slices.IndexFunc(points, func(p metrics.LoadPoint) bool { return p.Load == load })
}

// String renders the sweep as the sweep(...), until_saturation(...) or
// search(...) call that declared it.
func (s *Sweep) String() string {
	switch {
	case s == nil:
		return "None"
	case s.Saturation != nil:
		t := s.Saturation
		return fmt.Sprintf("until_saturation(start=%s, factor=%s, limit=%s, growth=%s, ttft_factor=%s, over=%s)",
			engine.Num(t.Start), engine.Num(t.Factor), engine.Num(t.Limit), strconv.Quote(percent(t.Growth)), engine.Num(t.TTFTFactor), strconv.Quote(t.Over))
	case s.Search != nil:
		t := s.Search
		return fmt.Sprintf("search(%s, over=%s, lo=%s, hi=%s, precision=%s)",
			strconv.Quote(t.Gate.Source), strconv.Quote(t.Over), engine.Num(t.Lo), engine.Num(t.Hi), strconv.Quote(percent(t.Precision)))
	}
	args := make([]string, len(s.Params))
	for i, p := range s.Params {
		vals := make([]string, len(p.Values))
		for j, v := range p.Values {
			vals[j] = engine.Num(v)
		}
		args[i] = p.Name + "=[" + strings.Join(vals, ", ") + "]"
	}
	return "sweep(" + strings.Join(args, ", ") + ")"
}

// percent writes a ratio as a percentage, hiding float noise (0.07 is
// "7%", not "7.000000000000001%").
func percent(r float64) string { return strconv.FormatFloat(r*100, 'g', 12, 64) + "%" }
