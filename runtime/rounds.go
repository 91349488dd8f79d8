package runtime

import (
	"context"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// This file is what runtime/ab, the interleaved A/B runner, needs of the
// executor: a point's job, one run of it watched by an observer, and the
// baseline a side's rounds make for the judge. The rounds are runs of
// the point like repeats, measured by the same Execute and written by
// the same observers.

// NewJob is the work of one point of e (its prompts drawn, bodies
// rendered, load and stop), as RunExperiment prepares it.
func NewJob(e *plan.Experiment, opts Options, spec plan.PointSpec) (Job, error) {
	return newJob(e, opts, spec)
}

// RunWatched executes one run of a point (an A/B round), watched by obs
// as a repeat is: obs.RunStarting, then Execute, then Finish. It always
// measures: which rounds a checkpoint holds is the A/B run's to decide
// (whole pairs only), not each round's.
func RunWatched(ctx context.Context, job Job, key PointKey, obs Observer) (*Outcome, error) {
	return runRepeat(ctx, job, key, watchOnly{obs})
}

// watchOnly is an Observer with only the Observer methods, so runRepeat
// finds no Resumer in it.
type watchOnly struct{ Observer }

// PairedBaseline is the baseline of an interleaved A/B point: side A's
// rounds, in round order, judged against side B's rounds of the same
// index as pairs (metrics.MethodPairedRounds).
func PairedBaseline(path string, rounds []*Outcome, costPerHour float64) *Baseline {
	return &Baseline{Path: path, Paired: true, Runs: func(_ plan.Params, component string) ([]metrics.RunData, error) {
		return RoundRuns(rounds, component, costPerHour), nil
	}}
}

// RoundRuns are runs as a comparison reads them, whole or for one
// dataset component, priced at costPerHour.
func RoundRuns(outs []*Outcome, component string, costPerHour float64) []metrics.RunData {
	return candidateRuns(metrics.Gate{Component: component}, outs, costPerHour)
}

// Reachable resolves e for a run of several parts: each sim:// replica
// is started once (so its clock and drift run on across the parts) and
// the endpoint rewritten to its address, every other replica dialled
// once. stop releases what was started.
func Reachable(e plan.Endpoint) (plan.Endpoint, func(), error) {
	bases, stop, err := resolveReplicas(e)
	if err != nil {
		return e, nil, err
	}
	if e.IsSim() || len(e.URLs) > 0 {
		e.URL = bases[0]
		if len(e.URLs) > 0 {
			e.URLs = bases
		}
	}
	return e, stop, nil
}
