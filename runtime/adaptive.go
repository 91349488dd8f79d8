package runtime

import (
	"slices"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// saturation grows the load until the saturation rule holds or the limit
// is reached (SPEC §6 until_saturation), each next load chosen from the
// points measured so far.
func (r *experimentRun) saturation() error {
	s := r.e.Sweep.Saturation
	var measured []metrics.LoadPoint
	for r.ctx.Err() == nil {
		load, verdict := decideSaturation(s, measured)
		if verdict != nil {
			r.decided.Saturation = verdict
			return nil
		}
		if err := r.measure(r.e.Base().With(s.Over, load)); err != nil {
			return err
		}
		measured = append(measured, loadPoint(&r.res.Points[len(r.res.Points)-1], s.Over, nil))
	}
	return nil
}

// decideSaturation is the next load to measure after measured (in run order), or
// the sweep's verdict when it would measure no more.
func decideSaturation(s *plan.Saturation, measured []metrics.LoadPoint) (float64, *SaturationResult) {
	sat := s.Driver()
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
		load, found := decideSearch(s, tried)
		if found != nil {
			r.decided.Search = found
			return nil
		}
		if err := r.measure(r.e.Base().With(s.Over, load)); err != nil {
			return err
		}
		tried = append(tried, loadPoint(&r.res.Points[len(r.res.Points)-1], s.Over, &s.Gate))
	}
	return nil
}

// decideSearch is the next load to probe after tried (in run order), or what
// the search found when it would probe no more.
func decideSearch(s *plan.Search, tried []metrics.LoadPoint) (float64, *SearchResult) {
	srch := s.Driver()
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
func ReplayDecisions(e *plan.Experiment, points []PointResult) *Capacity {
	if !e.Adaptive() || slices.ContainsFunc(points, func(p PointResult) bool { return p.Outcome.Interrupted }) {
		return nil // an interrupted sweep decided nothing: the default rule judges its points
	}
	lps := make([]metrics.LoadPoint, len(points))
	c := &Capacity{}
	if s := e.Sweep.Saturation; s != nil {
		for i := range lps {
			lps[i] = loadPoint(&points[i], s.Over, nil)
		}
		_, c.Saturation = decideSaturation(s, lps)
	} else {
		s := e.Sweep.Search
		for i := range lps {
			lps[i] = loadPoint(&points[i], s.Over, &s.Gate)
		}
		_, c.Search = decideSearch(s, lps)
	}
	return c
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
