package main

import (
	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime"
)

// profileCmd is `genai-perf profile` with the same flag names, plus the
// load shapes GenAI-Perf lacked (Poisson/gamma arrivals, a concurrency cap
// under a rate) and llmbench's robustness knobs.
type profileCmd struct {
	profileFlags
}

func (c *profileCmd) Run(e *env) error {
	cpt, err := c.compile()
	if err != nil {
		return err
	}
	c.warnInert()
	obs := &gpObserver{e: e, exp: cpt.exp, plots: c.GeneratePlots, resumed: map[string]bool{},
		points: map[string]*gpPoint{cpt.point.Params.Label(): {label: cpt.exp.Name, run: cpt.run}}}
	res, err := runtime.RunExperiment(e.ctx, cpt.exp, obs)
	obs.live.end()
	switch {
	case err != nil:
		return err
	case e.ctx.Err() != nil || interrupted(res):
		return errInterrupted
	}
	return nil
}

// pointRecord is the saved plan of a GenAI-Perf point, its prompts
// described as the console describes them.
func pointRecord(exp *runtime.Experiment, run *genaiperf.Run, key runtime.PointKey, index int) runtime.PointRecord {
	rec := runtime.RecordOf("", exp, key, index, records.StripCredentials)
	rec.Plan.Dataset = promptSource(run)
	return rec
}

// unreachable is the failure of a point no request could connect to: the
// run cannot be carried out (exit 3). Server faults are data.
func unreachable(out *runtime.Outcome) error {
	s := out.Summary
	if s.Completed == 0 && s.Failed > 0 && s.Errors[0].Class == metrics.ErrConnect && len(s.Errors) == 1 {
		return runFailed("no request could connect to %s: %s", out.Target, s.Errors[0].Message)
	}
	return nil
}
