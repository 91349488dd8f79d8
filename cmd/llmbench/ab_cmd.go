package main

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/html"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/gpflags"
)

// abCmd is an interleaved A/B run from profile's flags: the -u server
// (the candidate) against --baseline-url (the baseline) in rounds, judged
// paired (docs/compare.md "A/B"); exit 1 on a regression.
type abCmd struct {
	profileFlags
	gpflags.AB
	MaxRegression []string `default:"10%" sep:"," help:"Tolerance: a regression is called only when B is confidently worse than A by more than this (10% or 0.1); per metric as METRIC=5% (itl.p50=5%)."`
	Metrics       []string `sep:"," help:"Metrics judged, named as gates name them (default: compare's headline metrics)."`
	Confidence    float64  `default:"0.95" help:"Level of the judge's one-sided bounds, in (0, 1)."`
	Out           string   `type:"path" help:"Output folder (default: <artifact-dir>/<model>-<endpoint>-<load>-ab): <point>/a/, <point>/b/, plots/, gates.json, compare.json, summary.json, report.html."`
	NoPlots       bool     `help:"Do not render PNG plots."`
	logFlags
	recordsFlags
}

func (c *abCmd) Run(e *env) error {
	cpt, err := c.compile()
	if err != nil {
		return err
	}
	opt, err := (&compareCmd{MaxRegression: c.MaxRegression, Metrics: c.Metrics, Confidence: c.Confidence}).options()
	if err != nil {
		return err
	}
	names := opt.Metrics
	if len(names) == 0 {
		names = comparison.DefaultMetrics
	}
	exp := cpt.exp
	if exp.Gates, err = gpflags.ABGates(names, func(name string) float64 {
		if tol, ok := opt.Tolerances[name]; ok {
			return tol
		}
		return opt.Tolerance
	}); err != nil {
		return err
	}
	if err := c.AB.Apply(c.gp(), exp); err != nil {
		return err
	}
	exp.Name = "ab"
	exp.Telemetry = genaiPerfDefault(&c.Telemetry, e)
	out := cmp.Or(c.Out, filepath.Join(c.ArtifactDir, cpt.run.DirName()+"-ab"))
	r, runErr := runAB(e, "ab", exp, runtime.Options{}, out, !c.NoPlots, nil)
	if r == nil {
		return ofPoint(exp.Name, runErr)
	}
	results := []runtime.ExperimentResult{r.result}
	rep := &verdict.Report{Scenario: "ab", Verdicts: verdict.Collect(results), Check: verdict.CheckNotDefined,
		Partial: errors.Is(runErr, errInterrupted) || e.ctx.Err() != nil}
	cmpRep, err := artifacts.WithABComparison(nil, r.pairs)
	if err != nil {
		return err
	}
	run := artifacts.RunReport{Dir: out, File: "llmbench ab", Results: results, Verdicts: rep, Plots: !c.NoPlots, Drawn: &e.drawn, Comparison: cmpRep,
		Config: []html.KV{{Key: "candidate (b)", Value: cpt.run.URL}, {Key: "baseline (a)", Value: fmt.Sprint(c.BaselineURL)}, {Key: "llmbench", Value: version}}}
	if err := run.Write(e.stdout, e.stderr); err != nil {
		return runFailed("writing results: %w", err)
	}
	fmt.Fprintln(e.stdout)
	if err := run.WriteFileList(e.stdout); err != nil {
		return err
	}
	if runErr == nil && e.ctx.Err() != nil {
		runErr = errInterrupted
	}
	if runErr == nil {
		runErr = requestFailures(results...)
	}
	if runErr == nil {
		runErr = strictClient(c.Strict, results...)
	}
	return firstByPrecedence(ofPoint(exp.Name, runErr), nil, rep)
}
