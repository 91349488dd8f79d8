package main

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/builtins"
	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/regression"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/gpflags"
	"github.com/llmbench/llmbench/runtime/plan"
)

// runCmd runs a scenario: every experiment, every point, then the gates
// and check(); the exit code tells CI whether the gates held.
type runCmd struct {
	scenarioFlags
	gpflags.Telemetry
	shardFlags
	sourceFlags
	DryRun  bool `help:"Load and print the plan without sending traffic (same as llmbench check)."`
	Resume  bool `help:"Skip the runs of points finished in OUT/checkpoint.json by an earlier, interrupted run of the same scenario."`
	NoPlots bool `help:"Do not render PNG plots (per point in <point>/plots/, per sweep in OUT/)."`
	Strict  bool `help:"Exit 3 when the client, not the server, limited any point (client_limited: its CPU, or a schedule it could not keep)."`
	recordsFlags
	liveFlags
}

func (c *runCmd) Run(e *env) error {
	scen, err := c.load(e)
	if err != nil {
		return err
	}
	if err := c.Telemetry.Check(); err != nil {
		return err
	}
	err = replan(scen, func(exp *plan.Experiment) error {
		c.Telemetry.Apply(exp)
		return cmp.Or(c.sourceFlags.apply(exp), c.baselineFlags.override(exp))
	})
	if err != nil {
		return err
	}
	shard, meet, stopBarrier, err := c.shardFlags.plan()
	if err != nil {
		return err
	}
	defer stopBarrier()
	if err := checkShardable(scen, shard); err != nil {
		return err
	}
	baselines, err := c.baselineFlags.attachUnlessShard(e, scen, shard)
	if err != nil {
		return err
	}
	if c.DryRun {
		return printPlan(e.stdout, scen, baselines)
	}
	cp, err := artifacts.OpenRunCheckpoint(c.Out, c.Resume)
	if err != nil {
		return err
	}
	wiring := runWiring{shard: shard, meet: meet, baselines: baselines, abPairs: new([]comparison.Pair)}
	results, runErr := runExperiments(e, scen, wiring, c.Out, !c.NoPlots, cp)
	if runErr != nil && !errors.Is(runErr, errInterrupted) && len(results) == 0 {
		return runErr
	}
	if shard.Sharded() {
		return c.finishShard(e, scen, results, runErr, shard)
	}
	rep := &verdict.Report{Scenario: scenarioName(scen), Verdicts: verdict.Collect(results),
		Partial: errors.Is(runErr, errInterrupted) || overBudget(runErr), Check: verdict.CheckNotDefined}
	checkErr := judgeCheck(scen, results, rep, runErr)
	cmp, err := artifacts.WithABComparison(compareWithBaselines(e, c.Out, baselines), *wiring.abPairs)
	if err != nil {
		return err
	}
	if err := c.writeVerdicts(e, scen, results, rep, cmp); err != nil {
		return runFailed("writing results: %w", err)
	}
	if runErr == nil {
		runErr = requestFailures(results...)
	}
	if runErr == nil {
		runErr = strictClient(c.Strict, results...)
	}
	return firstByPrecedence(runErr, checkErr, rep)
}

// judgeCheck runs check(results) when every experiment ran, adding its
// verdicts to rep: fail() calls fail the run (exit 1), a script fault is
// a failed check() verdict and a scenario error (exit 2) — after the
// verdict files are written, so the gates judged are not lost.
func judgeCheck(scen *runtime.Scenario, results []runtime.ExperimentResult, rep *verdict.Report, runErr error) error {
	if scen.Check == nil {
		return nil
	}
	if runErr != nil {
		rep.Check = verdict.CheckNotRun
		return nil
	}
	err := scen.Check(results)
	var cf *builtins.CheckFailure
	switch {
	case err == nil:
		rep.Check = verdict.CheckPassed
		return nil
	case errors.As(err, &cf):
		rep.Check = verdict.CheckFailed
		rep.Verdicts = append(rep.Verdicts, verdict.CheckFailures(cf.Messages)...)
		return nil
	case classed(err, failure.Interrupted): // Ctrl-C while check() was tried in its child
		rep.Check, rep.Partial = verdict.CheckNotRun, true
		return err
	case classed(err, failure.Run): // that child crashed: llmbench's failure, not the script's
		rep.Check = verdict.CheckFailed
		rep.Verdicts = append(rep.Verdicts, verdict.CheckCrash(err))
		return err
	}
	var le *builtins.LoadError
	if errors.As(err, &le) {
		le.Msg = "check(): " + le.Msg // file:line:col: check(): what went wrong
	}
	rep.Check = verdict.CheckFailed
	rep.Verdicts = append(rep.Verdicts, verdict.CheckCrash(err))
	return invalid("%w", err)
}

// classed reports whether err says it is of class c (an unclassified
// error says nothing).
func classed(err error, c failure.Class) bool {
	var cl failure.Classifier
	return errors.As(err, &cl) && cl.FailureClass() == c
}

// firstByPrecedence is the run's outcome as one error, by the exit-code
// precedence 130 (interrupted) > 2 (scenario error, a check() crash
// included) > 3 (the run could not be carried out) > 1 (a gate failed).
func firstByPrecedence(runErr, checkErr error, rep *verdict.Report) error {
	switch {
	case errors.Is(runErr, errInterrupted):
		return runErr
	case checkErr != nil:
		return checkErr
	case runErr != nil:
		return runErr
	case rep.Failed() > 0:
		return &errGatesFailed{status: rep.Status()}
	}
	return nil
}

// runWiring is what a run gives its experiments beside their plans: the
// shard and its rendezvous, and each experiment's loaded baseline.
type runWiring struct {
	shard     engine.Shard
	meet      runtime.Rendezvous
	baselines *regression.Baselines
	// abPairs collects the A/B experiments' points for compare.json.
	abPairs *[]comparison.Pair
}

// of is the wiring of the experiment named name.
func (w runWiring) of(name string) runtime.Options {
	opts := runtime.Options{Shard: w.shard, Rendezvous: w.meet}
	if w.baselines != nil {
		opts.Against = w.baselines.Against[name]
	}
	return opts
}

// runExperiments measures every experiment, writing each point as it ends.
func runExperiments(e *env, scen *runtime.Scenario, wiring runWiring, out string, plotsOn bool, cp *artifacts.RunCheckpoint) ([]runtime.ExperimentResult, error) {
	var results []runtime.ExperimentResult
	for i := range scen.Experiments {
		exp := &scen.Experiments[i]
		if exp.AB != nil {
			r, err := runAB(e, scenarioName(scen), exp, wiring.of(exp.Name), out, plotsOn, cp)
			if r != nil {
				results, *wiring.abPairs = append(results, r.result), append(*wiring.abPairs, r.pairs...)
			}
			if err != nil {
				return results, err
			}
			if e.ctx.Err() != nil {
				return results, errInterrupted
			}
			continue
		}
		obs := &artifacts.ScenarioObserver{Session: e.session(plotsOn), Scenario: scenarioName(scen), Out: out, Exp: exp, Checkpoint: cp}
		obs.Sink.Drawn = &e.drawn // for report.html
		res, err := runtime.RunExperiment(e.ctx, exp, wiring.of(exp.Name), obs)
		obs.Display.End()
		if res != nil {
			results = append(results, *res)
		}
		if err != nil {
			return results, err // classified where it started
		}
		if e.ctx.Err() != nil || interrupted(res) {
			return results, errInterrupted
		}
	}
	return results, nil
}

// overBudget reports a run stopped by its error budget: its results are
// partial.
func overBudget(err error) bool {
	var be *runtime.BudgetExceeded
	return errors.As(err, &be)
}

func interrupted(res *runtime.ExperimentResult) bool {
	for _, p := range res.Points {
		if p.Outcome.Interrupted {
			return true
		}
	}
	return false
}

// writeVerdicts prints the sweep tables and the gate list, writes the
// run's files (see artifacts.RunReport) and says where they went.
func (c *runCmd) writeVerdicts(e *env, scen *runtime.Scenario, results []runtime.ExperimentResult, rep *verdict.Report, cmp *comparison.Report) error {
	run := artifacts.RunReport{Dir: c.Out, File: scen.File, Config: scenarioConfig(scen), Results: results,
		Verdicts: rep, Plots: !c.NoPlots, Drawn: &e.drawn, JUnit: c.Junit, Markdown: c.SummaryMd, Comparison: cmp}
	if err := run.Write(e.stdout, e.stderr); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	return run.WriteFileList(e.stdout)
}

// scenarioName is the scenario file's base name without extension.
func scenarioName(scen *runtime.Scenario) string {
	return strings.TrimSuffix(filepath.Base(scen.File), filepath.Ext(scen.File))
}
