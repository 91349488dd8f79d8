package main

import (
	"errors"
	"fmt"
	"slices"

	runplan "github.com/llmbench/llmbench/runtime/plan"

	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/runtime"
)

// profileCmd is `genai-perf profile` with the same flag names, plus the
// load shapes GenAI-Perf lacked (Poisson/gamma arrivals, a concurrency cap
// under a rate) and llmbench's robustness knobs.
type profileCmd struct {
	profileFlags
	logFlags
	recordsFlags
	liveFlags
}

func (c *profileCmd) Run(e *env) error {
	cpt, err := c.compile()
	if err != nil {
		return err
	}
	if err := c.outputsApart(); err != nil {
		return err
	}
	c.warnInert()
	cpt.exp.Telemetry = genaiPerfDefault(&c.Telemetry, e)
	obs := &artifacts.GenAIPerfObserver{Session: e.session(c.GeneratePlots), Exp: cpt.exp,
		Points: map[string]*artifacts.GenAIPerfPoint{cpt.point.Params.Label(): {Label: cpt.exp.Name, Run: cpt.run}}}
	res, err := runtime.RunExperiment(e.ctx, cpt.exp, runtime.Options{}, obs)
	obs.Display.End()
	switch {
	case err != nil:
		return ofPoint(cpt.exp.Name, err)
	case e.ctx.Err() != nil || interrupted(res):
		return errInterrupted
	}
	if err := requestFailures(*res); err != nil {
		return ofPoint(cpt.exp.Name, err)
	}
	return strictClient(c.Strict, *res)
}

// ofPoint words err for a command of one point: profile runs its point as
// an experiment named after the point's artifact folder, so the runtime's
// "experiment X, point concurrency1" and "X/concurrency1" would speak of
// an experiment the user never wrote. The point is named by its folder.
func ofPoint(name string, err error) error {
	var pe *runtime.PointError
	var plan *runplan.PlanError
	var alarms *runtime.UnjudgedErrors
	switch {
	case errors.As(err, &pe):
		return fmt.Errorf("point %s: %w", name, pe.Err)
	case errors.As(err, &plan):
		return fmt.Errorf("point %s: %w", name, plan.Err)
	case errors.As(err, &alarms):
		renamed := &runtime.UnjudgedErrors{Alarms: slices.Clone(alarms.Alarms)}
		for i := range renamed.Alarms {
			renamed.Alarms[i].Experiment, renamed.Alarms[i].Point = "", "point "+name
		}
		return renamed
	}
	return err
}
