package main

import (
	"errors"
	"fmt"

	"github.com/llmbench/llmbench/builtins"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/regression"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// baselineFlags say what baseline gates compare with; check takes them
// too, so it refuses a baseline that run would refuse.
type baselineFlags struct {
	Baseline             string `type:"path" help:"A stored run (its folder, or any input compare takes), or a folder of runs of the scenario (a history: the last runs of main), that baseline gates (\"ttft.p99 <= baseline * 1.10\") compare with, its experiments matched by name, every run of a history counted; overrides experiment(baseline=)."`
	AllowMissingBaseline bool   `help:"A missing baseline, or a point it lacks, is a warning and its baseline gates are skipped (a branch's first run), instead of an error."`
	FailOnInconclusive   bool   `help:"Fail a baseline gate whose comparison is inconclusive (the interval straddles the limit) instead of passing it with a warning."`
	AllowWeakGates       bool   `help:"Run a baseline gate that could not fail at its tolerance with the planned sample (its minimum detectable change, from the baseline, is larger) with a warning, instead of refusing it."`
}

// baselines is an empty set of baselines as these flags say to load
// them; its Attach gives one experiment its baseline.
func (f *baselineFlags) baselines(e *env) *regression.Baselines {
	opt := regression.BaselineOptions{FailOnInconclusive: f.FailOnInconclusive, AllowMissing: f.AllowMissingBaseline}
	return regression.NewBaselines(f.Baseline, opt, storedrun.Options{Stderr: e.stderr})
}

// attach loads the experiments' baselines and prints what they are
// made of.
func (f *baselineFlags) attach(e *env, scen *runtime.Scenario) (*regression.Baselines, error) {
	b := f.baselines(e)
	var weak []error
	for i := range scen.Experiments {
		if scen.Experiments[i].AB != nil {
			continue // its baseline is its ab= endpoint, measured with it
		}
		against, err := b.Attach(&scen.Experiments[i])
		if err != nil {
			return nil, err
		}
		gates, err := runtime.WeakGates(&scen.Experiments[i], against)
		if err != nil {
			return nil, err
		}
		for _, w := range gates {
			if f.AllowWeakGates {
				b.Warnings = append(b.Warnings, w.Error())
			} else {
				weak = append(weak, fmt.Errorf("%s: %w", builtins.GatePosition(scen.File, w.Gate.Source), w))
			}
		}
	}
	printBaselineWarnings(e, b)
	if len(weak) > 0 {
		return nil, failure.New(failure.Input, errors.Join(weak...))
	}
	return b, nil
}

// printBaselineWarnings prints how many runs a baseline history holds,
// the runs it left out and what --allow-missing-baseline let through.
func printBaselineWarnings(e *env, b *regression.Baselines) {
	for _, n := range b.Notes {
		fmt.Fprintf(e.stderr, "llmbench: %s\n", n)
	}
	for _, w := range b.Warnings {
		fmt.Fprintf(e.stderr, "llmbench: warning: %s\n", w)
	}
}

// attachUnlessShard attaches the baselines of an unsharded run. A shard
// judges no gate (merge judges them over the union), so it loads none:
// its saved plans name the baseline, --baseline (override) or
// experiment(baseline=), for merge to compare with.
func (f *baselineFlags) attachUnlessShard(e *env, scen *runtime.Scenario, s engine.Shard) (*regression.Baselines, error) {
	if !s.Sharded() {
		return f.attach(e, scen)
	}
	return nil, nil
}

// override is the experiment's plan with --baseline in place of its
// own baseline=, so the saved plan says what it was compared with.
func (f *baselineFlags) override(exp *plan.Experiment) error {
	if f.Baseline != "" {
		exp.Baseline = f.Baseline
	}
	return nil
}

// compareWithBaselines compares the run just written in out with its
// experiments' baselines, as `llmbench compare` would; nil when none has
// one. The gates have judged already, so a comparison that cannot be
// made is a warning, not a failure of the run.
func compareWithBaselines(e *env, out string, b *regression.Baselines) *comparison.Report {
	if b == nil || len(b.ByExperiment) == 0 {
		return nil
	}
	set, err := storedrun.Load(out, storedrun.Options{Stderr: e.stderr})
	var r *comparison.Report
	if err == nil {
		r, err = regression.AgainstBaselines(set, b, comparison.DefaultOptions())
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "llmbench: warning: comparing with the baseline: %v\n", err)
	}
	return r
}
