package main

import (
	"github.com/llmbench/llmbench/reports/artifacts"
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
	cpt.exp.Telemetry = c.Telemetry.genaiPerfDefault(e)
	obs := &artifacts.GenAIPerfObserver{Session: e.session(c.GeneratePlots), Exp: cpt.exp,
		Points: map[string]*artifacts.GenAIPerfPoint{cpt.point.Params.Label(): {Label: cpt.exp.Name, Run: cpt.run}}}
	res, err := runtime.RunExperiment(e.ctx, cpt.exp, obs)
	obs.Display.End()
	switch {
	case err != nil:
		return err
	case e.ctx.Err() != nil || interrupted(res):
		return errInterrupted
	}
	if err := requestFailures(*res); err != nil {
		return err
	}
	return strictClient(c.Strict, *res)
}
