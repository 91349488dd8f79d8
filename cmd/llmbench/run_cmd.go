package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/builtins"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/reports/sweep"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
)

// runCmd runs a scenario: every experiment, every point, then the gates
// and check(); the exit code tells CI whether the gates held.
type runCmd struct {
	File      string   `arg:"" type:"path" help:"Scenario file (.star)."`
	Define    []string `short:"D" sep:"none" help:"key=value visible to the scenario as ctx.vars (repeatable)."`
	Out       string   `default:"out" help:"Directory for results: OUT/<experiment>/<point>/ and per-run files."`
	DryRun    bool     `help:"Load and print the plan without sending traffic (same as llmbench check)."`
	Resume    bool     `help:"Skip points already finished in OUT (not supported yet)."`
	Shard     string   `help:"Run shard I/N of the load (not supported yet)."`
	Junit     string   `type:"path" help:"Also write JUnit XML (one testcase per gate) to this file."`
	SummaryMd string   `name:"summary-md" type:"path" help:"Also write a Markdown summary to this file."`
	NoPlots   bool     `help:"Do not render PNG plots (per point in <point>/plots/, per sweep in OUT/)."`
}

func (c *runCmd) Run(e *env) error {
	if c.Resume || c.Shard != "" {
		return invalid("--resume and --shard are not supported yet")
	}
	scen, err := loadScenario(c.File, c.Define)
	if err != nil {
		return err
	}
	if c.DryRun {
		return printPlan(e.stdout, scen)
	}
	if err := runnable(scen); err != nil {
		return err
	}
	results, runErr := runExperiments(e, scen, c.Out, !c.NoPlots)
	if runErr != nil && !errors.Is(runErr, errInterrupted) {
		return runErr
	}
	vs := verdict.Collect(results)
	if scen.Check != nil && runErr == nil {
		more, err := runCheck(scen, results)
		if err != nil {
			return err
		}
		vs = append(vs, more...)
	}
	if err := c.writeVerdicts(e, scen, results, vs); err != nil {
		return runFailed("writing results: %v", err)
	}
	if runErr != nil {
		return runErr
	}
	if n := verdict.Failed(vs); n > 0 {
		return &exitError{code: exitGateFailed, err: fmt.Errorf("%d of %d gates failed", n, len(vs))}
	}
	return nil
}

// loadScenario loads and validates a scenario; every problem is exit 2.
func loadScenario(file string, defines []string) (*runtime.Scenario, error) {
	vars := map[string]string{}
	for _, d := range defines {
		k, v, ok := strings.Cut(d, "=")
		if !ok || k == "" {
			return nil, invalid("-D: got %q, want key=value", d)
		}
		vars[k] = v
	}
	scen, err := builtins.Load(file, vars, builtins.Options{})
	if err != nil {
		return nil, invalid("%v", err)
	}
	return scen, nil
}

// runnable refuses, before any traffic, what a scenario may declare but
// this version cannot run yet (SPEC features still being built).
func runnable(scen *runtime.Scenario) error {
	var errs []error
	for i := range scen.Experiments {
		if err := scen.Experiments[i].Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return invalid("%s: %v", scen.File, err)
	}
	return nil
}

// runExperiments measures every experiment, writing each point as it ends.
func runExperiments(e *env, scen *runtime.Scenario, out string, plotsOn bool) ([]runtime.ExperimentResult, error) {
	var results []runtime.ExperimentResult
	for i := range scen.Experiments {
		exp := &scen.Experiments[i]
		var live liveProgress
		res, err := runtime.RunExperiment(e.ctx, exp, runtime.Hooks{
			Progress: func(label string, requests int) *runtime.Progress {
				return live.start(e, exp.Name+"/"+label, requests)
			},
			Records: func(label string, params map[string]float64, repeat int, reqs []runtime.Request) (runtime.RecordWriter, func(*runtime.Outcome) error, error) {
				return openRunSink(e, scenarioName(scen), filepath.Join(out, exp.Name, label), exp, label, params, repeat, reqs, plotsOn)
			},
			Done: func(p runtime.PointResult) error {
				live.end()
				return writeRepeats(e, filepath.Join(out, exp.Name, p.Label), exp, &p)
			},
		})
		live.end()
		if res != nil {
			results = append(results, *res)
		}
		if err != nil {
			if errors.Is(err, runtime.ErrUnreachable) {
				return results, runFailed("%v", err)
			}
			return results, invalid("%v", err)
		}
		if e.ctx.Err() != nil || interrupted(res) {
			return results, errInterrupted
		}
	}
	return results, nil
}

// liveProgress shows one point run at a time: starting the next display
// ends the previous one (repeats of a point run back to back).
type liveProgress struct{ stop func() }

func (l *liveProgress) start(e *env, title string, requests int) *runtime.Progress {
	l.end()
	p := &runtime.Progress{}
	l.stop = startProgress(e, title, requests, p)
	return p
}

func (l *liveProgress) end() {
	if l.stop != nil {
		l.stop()
		l.stop = nil
	}
}

// repeatDir is where repeat k (from 1) of a point writes: the point's
// folder for the first, repeat2/, repeat3/... for the others.
func repeatDir(dir string, k int) string {
	if k <= 1 {
		return dir
	}
	return filepath.Join(dir, fmt.Sprintf("repeat%d", k))
}

// openRunSink starts the files of one run of a scenario point (see
// pointSink); the returned finish completes them once the run's outcome is
// known.
func openRunSink(e *env, scenario, dir string, exp *runtime.Experiment, label string, params map[string]float64,
	repeat int, reqs []runtime.Request, withPlots bool) (runtime.RecordWriter, func(*runtime.Outcome) error, error) {
	point := &runtime.PointResult{Label: label, Params: params}
	run := describePoint(exp, point, &runtime.Outcome{})
	id := records.Meta{Scenario: scenario, Experiment: exp.Name, Point: label, Repeat: repeat}
	sink, err := openPointSink(repeatDir(dir, repeat), &run, id, reqs, withPlots)
	if err != nil {
		return nil, nil, err
	}
	return sink, func(out *runtime.Outcome) error {
		if out == nil {
			sink.abandon()
			return nil
		}
		run := describePoint(exp, point, out)
		return sink.finish(e.stderr, &run, out, exp.Name+" / "+repeatTitle(label, repeat, exp.Repeats))
	}, nil
}

// repeatTitle names repeat k (from 1) of n of a point.
func repeatTitle(label string, k, n int) string {
	if n <= 1 {
		return label
	}
	return fmt.Sprintf("%s (repeat %d of %d)", label, k, n)
}

// writeRepeats writes a point's artifacts: the first repeat in the point's
// folder (GenAI-Perf's layout), further repeats in repeat2/, repeat3/...
func writeRepeats(e *env, dir string, exp *runtime.Experiment, p *runtime.PointResult) error {
	for k, out := range p.Repeats {
		fmt.Fprintf(e.stdout, "\n== %s / %s ==\n", exp.Name, repeatTitle(p.Label, k+1, len(p.Repeats)))
		run := describePoint(exp, p, out)
		if err := writePointArtifacts(e.stdout, repeatDir(dir, k+1), &run, out); err != nil {
			return err
		}
	}
	return nil
}

func interrupted(res *runtime.ExperimentResult) bool {
	for _, p := range res.Points {
		if p.Outcome.Interrupted {
			return true
		}
	}
	return false
}

// runCheck calls the scenario's check(results); fail() calls become
// failed verdicts, a script fault is a scenario error.
func runCheck(scen *runtime.Scenario, results []runtime.ExperimentResult) ([]verdict.Verdict, error) {
	err := scen.Check(results)
	var cf *builtins.CheckFailure
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &cf):
		return verdict.CheckFailures(cf.Messages), nil
	}
	return nil, invalid("check(): %v", err)
}

// describePoint fills the GenAI-Perf description of a scenario point.
func describePoint(exp *runtime.Experiment, p *runtime.PointResult, out *runtime.Outcome) genaiperf.Run {
	ep := exp.Endpoint
	r := genaiperf.DefaultRun(ep.ModelNames()...)
	r.ModelSelection = ep.ModelSelection
	r.Subcommand = "run"
	r.EndpointType, r.Streaming, r.URL = string(ep.API), ep.Stream, ep.URL
	r.Endpoint = strings.TrimLeft(ep.Path, " /")
	r.Stimulus = genaiperf.Stimulus{Concurrency: int(p.Params[runtime.ParamConcurrency]), RequestRate: p.Params[runtime.ParamRate]}
	r.RequestCount, r.MeasurementInterval, r.WarmupRequestCount = exp.Requests, int(exp.Duration.Milliseconds()), exp.Warmup
	for _, slo := range exp.Goodput {
		r.Goodput = append(r.Goodput, genaiperf.Goodput{Name: string(slo.Metric), Value: slo.Value})
	}
	for _, f := range ep.Extra {
		r.ExtraInputs = append(r.ExtraInputs, genaiperf.Field{Name: f.Key, Value: f.Value})
	}
	r.RandomSeed = int(exp.Seed)
	if arrival := exp.Load.Arrival; arrival != "" {
		r.RequestDistribution = string(arrival)
	} else if r.Stimulus.Mode() == "request_rate" {
		r.RequestDistribution = string(runtime.Poisson) // a rate sweep's default
	}
	r.TokenCounting = out.Counting.String()
	r.Tokenizer = ep.Tokenizer
	r.Version = "llmbench " + version
	return r
}

// writeVerdicts prints the gate list and writes gates.json, and JUnit and
// Markdown when asked.
func (c *runCmd) writeVerdicts(e *env, scen *runtime.Scenario, results []runtime.ExperimentResult, vs []verdict.Verdict) error {
	for i := range results {
		if len(results[i].Points) > 1 || results[i].Search != nil {
			fmt.Fprintf(e.stdout, "\n== %s: sweep ==\n", results[i].Experiment.Name)
			if err := sweep.WriteTable(e.stdout, &results[i], sweep.LoadParam(&results[i])); err != nil {
				return err
			}
			if !c.NoPlots {
				writeSweepPlots(e.stderr, c.Out, &results[i], sweep.LoadParam(&results[i]))
			}
		}
	}
	fmt.Fprintln(e.stdout)
	if err := verdict.WriteConsole(e.stdout, vs); err != nil {
		return err
	}
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return err
	}
	name := scenarioName(scen)
	files := map[string]func(*os.File) error{
		filepath.Join(c.Out, "gates.json"):   func(f *os.File) error { return verdict.WriteJSON(f, vs) },
		filepath.Join(c.Out, "summary.json"): func(f *os.File) error { return sweep.WriteSummaryJSON(f, name, results) },
	}
	if c.Junit != "" {
		files[c.Junit] = func(f *os.File) error { return verdict.WriteJUnit(f, name, vs) }
	}
	if c.SummaryMd != "" {
		files[c.SummaryMd] = func(f *os.File) error { return verdict.WriteMarkdown(f, name, results, vs) }
	}
	for path, write := range files {
		if err := writeFile(path, write); err != nil {
			return err
		}
	}
	return writeHTMLReport(c.Out, scen, results, vs, !c.NoPlots)
}

// scenarioName is the scenario file's base name without extension.
func scenarioName(scen *runtime.Scenario) string {
	return strings.TrimSuffix(filepath.Base(scen.File), filepath.Ext(scen.File))
}
