package main

import (
	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/ab"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
)

// abRun is an interleaved A/B experiment as run and ab run it: each
// side's points written by a ScenarioObserver of its own under
// OUT/<experiment>/<point>/{a,b}/, then the per-round plots; the result
// that carries the verdicts is side B's, and pairs are what compare.json
// is built from (the same judge, paired).
type abRun struct {
	result runtime.ExperimentResult
	pairs  []comparison.Pair
}

func runAB(e *env, scenario string, exp *plan.Experiment, opts runtime.Options, out string, plotsOn bool, cp *artifacts.RunCheckpoint) (*abRun, error) {
	var obs ab.Observers
	var watch [2]*artifacts.ScenarioObserver
	sides := ab.SidePlans(exp)
	for s := range obs {
		o := &artifacts.ScenarioObserver{Session: e.session(plotsOn), Scenario: scenario, Out: out, Exp: sides[s], Side: engine.Side(s).String(), Checkpoint: cp}
		o.Sink.Drawn = &e.drawn
		watch[s], obs[s] = o, o
	}
	res, err := ab.Run(e.ctx, exp, opts, obs)
	for _, o := range watch {
		o.Display.End()
	}
	if res == nil {
		return nil, err
	}
	r := &abRun{result: res.Sides[engine.SideB]}
	r.result.Experiment = exp
	r.pairs = artifacts.ABPairs(exp, res)
	if plotsOn {
		artifacts.WriteRoundPlots(e.stderr, out, exp, res)
	}
	return r, err
}
