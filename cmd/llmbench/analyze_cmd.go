package main

import (
	"path/filepath"

	runplan "github.com/llmbench/llmbench/runtime/plan"

	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/gpflags"
)

// analyzeCmd is `genai-perf analyze`: every profile flag plus a sweep of
// one parameter, one GenAI-Perf artifact folder per point, the analyze CSV,
// and llmbench's sweep table, summary.json and checkpoint/resume.
type analyzeCmd struct {
	profileFlags

	SweepType  string            `default:"concurrency" help:"Parameter to sweep: concurrency, request_rate, input_sequence_length or output_sequence_length."`
	SweepRange string            `help:"MIN:MAX (powers of two from 2^floor(log2 MIN) to 2^floor(log2 MAX)) or MIN:MAX:STEP (not for concurrency); default 1:1024."`
	SweepList  gpflags.SweepList `help:"Comma-separated values to sweep, in this order (instead of --sweep-range)."`

	EnableCheckpointing bool   `help:"Skip points already finished in the checkpoint (GenAI-Perf's flag; same as --resume)."`
	CheckpointDir       string `default:"checkpoint" help:"Folder of checkpoint.json, written after every finished point."`
	Resume              bool   `help:"Resume an interrupted sweep: skip the points finished in the checkpoint."`

	PointSeeds bool `help:"Give each point prompts of its own (--random-seed mixed with the point's value), so no point runs on the prefix cache an earlier one filled. Off: GenAI-Perf's single seed, the same prompts at every point."`

	logFlags
	recordsFlags
}

// analyzePlan is a validated sweep, ready to run: the experiment its
// points compile into, and how each point's artifacts name it.
type analyzePlan struct {
	spec   sweepSpec
	exp    *runplan.Experiment
	points map[string]*artifacts.GenAIPerfPoint
}

// Run sweeps through the same executor as `run`, then writes the sweep's
// files even after an interrupt or a lost server, so what finished is
// never lost; the exit code is the run's.
func (c *analyzeCmd) Run(e *env) error {
	plan, err := c.sweepPlan()
	if err != nil {
		return err
	}
	if err := c.outputsApart(); err != nil {
		return err
	}
	plan.exp.Telemetry = genaiPerfDefault(&c.Telemetry, e)
	cp, err := artifacts.OpenSweepCheckpoint(c.checkpointPath(), c.Model[0], c.resuming(), c.APIKey != "")
	if err != nil {
		return err
	}
	obs := &artifacts.GenAIPerfObserver{Session: e.session(c.GeneratePlots), Exp: plan.exp, Points: plan.points,
		Experiment: plan.exp.Name, Header: true, Checkpoint: cp}
	res, runErr := runtime.RunExperiment(e.ctx, plan.exp, runtime.Options{}, obs)
	obs.Display.End()
	if runErr == nil && (e.ctx.Err() != nil || interrupted(res)) {
		runErr = errInterrupted
	}
	if runErr == nil {
		runErr = requestFailures(*res)
	}
	if runErr == nil {
		runErr = strictClient(c.Strict, *res)
	}
	if err := c.report(e, plan, res, cp); err != nil {
		return runFailed("writing sweep results: %w", err)
	}
	return runErr
}

// sweepPlan checks the sweep and every point's flags before any traffic,
// so a bad flag is exit 2 at once, not after an hour of sweeping.
func (c *analyzeCmd) sweepPlan() (*analyzePlan, error) {
	spec, err := parseSweep(c.SweepType, c.SweepRange, string(c.SweepList))
	if err != nil {
		return nil, err
	}
	if err := c.compatible(spec.kind); err != nil {
		return nil, err
	}
	points, err := sweepPoints(&c.profileFlags, spec)
	if err != nil {
		return nil, err
	}
	plan := &analyzePlan{spec: spec, points: map[string]*artifacts.GenAIPerfPoint{}}
	for i, pt := range points {
		cpt, err := pt.flags.compile()
		if err != nil {
			return nil, err
		}
		if i == 0 { // the endpoint, goodput, warmup and seed every point shares
			plan.exp = cpt.exp
			plan.exp.Name, plan.exp.Planned = c.Model[0], nil
			plan.exp.Sweep = &runplan.Sweep{Params: []runplan.SweepParam{{Name: spec.kind.param, Values: spec.values}}}
			plan.exp.PointSeeds = c.PointSeeds
		}
		cpt.point.Params = pt.params
		plan.exp.Planned = append(plan.exp.Planned, cpt.point)
		c.describe(&cpt.run, spec, pt.label)
		plan.points[pt.params.Label()] = &artifacts.GenAIPerfPoint{Label: pt.label, Run: cpt.run, Config: pt.config}
	}
	c.warnInert()
	return plan, nil
}

// describe marks a point's GenAI-Perf description as an analyze point.
func (c *analyzeCmd) describe(run *genaiperf.Run, spec sweepSpec, label string) {
	run.Subcommand = "analyze"
	run.Objective = label
	run.Sweep = &spec.echo
	run.CheckpointDir, run.EnableCheckpointing = c.CheckpointDir, c.EnableCheckpointing
}

// compatible refuses profile flags that contradict the sweep.
func (c *analyzeCmd) compatible(kind sweepKind) error {
	switch {
	case c.FixedSchedule:
		return invalid("--fixed-schedule replays the input's own timestamps: there is no load for analyze to sweep")
	case (kind.name == "concurrency" || kind.name == "request_rate") && (c.Concurrency > 0 || c.RequestRate > 0):
		return invalid("--concurrency and --request-rate: the sweep sets the load (--sweep-type %s); drop the flag", kind.name)
	case (kind.name == "input_sequence_length" || kind.name == "output_sequence_length") && c.InputFile != "":
		return invalid("--sweep-type %s needs synthetic prompts; --input-file %s fixes the prompts and their lengths", kind.name, c.InputFile)
	}
	return nil
}

// checkpointPath is GenAI-Perf's <checkpoint-dir>/checkpoint.json.
func (c *analyzeCmd) checkpointPath() string {
	return filepath.Join(c.CheckpointDir, artifacts.CheckpointFile)
}

// resuming says whether finished points are skipped: with --resume, or
// with GenAI-Perf's --enable-checkpointing.
func (c *analyzeCmd) resuming() bool { return c.Resume || c.EnableCheckpointing }

// rateSweep says whether the CSV's load column is a request rate, by
// GenAI-Perf's rule (analyze.py _determine_infer_type).
func (c *analyzeCmd) rateSweep(kind sweepKind) bool {
	return kind.name == "request_rate" || (kind.name != "concurrency" && c.RequestRate > 0)
}
