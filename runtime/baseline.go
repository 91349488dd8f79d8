package runtime

import (
	"errors"
	"fmt"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
)

// Options are the wiring of one run of a plan, set by the command that
// runs it after the plan was validated: never part of the plan, never
// stored with it or hashed into a checkpoint.
type Options struct {
	// Against is the stored run the experiment's baseline gates compare
	// with; nil when there is none (the gates are then skipped, which
	// only --allow-missing-baseline lets happen).
	Against *Baseline
	// Shard is this process's part of a sharded run (--shard I/N); the
	// zero value runs the whole experiment.
	Shard engine.Shard
	// Rendezvous, when set, starts every point at an instant all shards
	// agreed on.
	Rendezvous Rendezvous
}

// Baseline is the stored run an experiment's baseline gates compare with
// (experiment(baseline=), run --baseline DIR): its points matched by
// parameters, each with its runs. The caller loads it, so the engine
// knows nothing of files.
type Baseline struct {
	// Path names the baseline in messages and reports, as the user gave it.
	Path string
	// Runs are the baseline's runs (repeats) of the experiment's point
	// with these parameters, each summarised whole (component "") or for
	// one dataset component; ErrNoBaselinePoint when the baseline has no
	// such point, and any other error when its records cannot be read,
	// which fails the point's baseline gates naming it (a gate is never
	// judged on less than it compares).
	Runs func(params plan.Params, component string) ([]metrics.RunData, error)
	// FailOnInconclusive fails a gate whose comparison cannot tell,
	// instead of passing it with a warning.
	FailOnInconclusive bool
	// AllowMissing skips, with a warning, a baseline gate at a point the
	// baseline lacks, instead of failing it.
	AllowMissing bool
	// Confidence is the level of the judge's one-sided bounds; 0 means
	// 0.95.
	Confidence float64
	// Paired says the baseline's runs are rounds of an interleaved A/B
	// point, each paired with the candidate's round of the same index
	// (see PairedBaseline).
	Paired bool
}

// judgeGates fills the results of the baseline gates (indexes idx of
// results) at a point with the judge's verdicts (metrics.JudgePoint):
// the point's baseline gates are one family, so several of them do not
// multiply the chance of a false failure, and `llmbench compare` of the
// stored runs reaches the same verdicts from the same function.
// A nil b is no baseline: the gates are skipped, as only
// --allow-missing-baseline lets happen.
func (b *Baseline) judgeGates(costPerHour float64, params plan.Params, outs []*Outcome, results []GateResult, idx []int) {
	if b == nil {
		for _, i := range idx {
			results[i].Skipped, results[i].Passed = "no baseline to compare with (--allow-missing-baseline)", true
		}
		return
	}
	gates := make([]metrics.Gate, len(idx))
	for k, i := range idx {
		gates[k] = results[i].Gate
	}
	type baseRead struct {
		runs []metrics.RunData
		err  error
	}
	read := map[string]baseRead{} // by component: the judge and the cache check read the baseline once
	runs := func(g metrics.Gate) ([]metrics.RunData, []metrics.RunData, error) {
		r, ok := read[g.Component]
		if !ok {
			r.runs, r.err = b.Runs(params, g.Component)
			if r.err != nil && !errors.Is(r.err, ErrNoBaselinePoint) {
				r.err = fmt.Errorf("baseline %s: point %s: %w", b.Path, params.Label(), r.err)
			}
			read[g.Component] = r
		}
		return r.runs, candidateRuns(g, outs, costPerHour), r.err
	}
	j := metrics.JudgePoint(gates, nil, runs, b.judgeOptions())
	for k, i := range idx {
		b.record(&results[i], j.Gated[k], params)
		if base, cand, err := runs(gates[k]); err == nil {
			results[i].Warning = metrics.CacheShareWarning(base, cand) // as compare warns
		}
	}
}

func (b *Baseline) judgeOptions() metrics.JudgeOptions {
	opt := metrics.DefaultJudgeOptions()
	if b.Confidence > 0 {
		opt.Confidence = b.Confidence
	}
	opt.Paired = b.Paired
	return opt
}

// record puts one gate's judgment in its result: a regression fails it,
// an inconclusive one too under FailOnInconclusive.
func (b *Baseline) record(r *GateResult, j metrics.Judged, params plan.Params) {
	switch {
	case errors.Is(j.Err, ErrNoBaselinePoint) && b.AllowMissing:
		r.Skipped, r.Passed = fmt.Sprintf("the baseline %s has no point %s (--allow-missing-baseline)", b.Path, params.Label()), true
	case j.Err != nil:
		r.Err = j.Err
	default:
		c := j.Comparison
		r.Comparison, r.Measured, r.Baseline = &c, c.Candidate, &c.Baseline
		r.Passed = c.Verdict != metrics.VerdictRegression &&
			!(c.Verdict == metrics.VerdictInconclusive && b.FailOnInconclusive)
	}
}

// ErrNoBaselinePoint is what Baseline.Runs gives for a point the
// baseline did not measure.
var ErrNoBaselinePoint = errors.New("the baseline has no such point")

// candidateRuns are a point's runs as a comparison reads them, whole or
// for the gate's dataset component, priced at costPerHour.
func candidateRuns(g metrics.Gate, outs []*Outcome, costPerHour float64) []metrics.RunData {
	runs := make([]metrics.RunData, len(outs))
	for i, o := range outs {
		s := o.Series
		if s != nil && g.Component != "" {
			s = s.Component(g.Component)
		}
		runs[i] = metrics.RunData{Summary: o.gateSummary(g), Series: s, CostPerHour: costPerHour}
		if o.Telemetry != nil {
			runs[i].Telemetry = &o.Telemetry.Summary
		}
	}
	return runs
}

// MeasuredBaseline is a baseline measured in this process, not read from
// a stored run: `llmbench calibrate` judges one measured run of a
// scenario against another with exactly the family, options and verdict
// rules a stored baseline gets. outcomes gives a point's repeats, nil
// when the baseline run has no such point.
func MeasuredBaseline(path string, costPerHour float64, outcomes func(plan.Params) []*Outcome) *Baseline {
	return &Baseline{Path: path, Runs: func(params plan.Params, component string) ([]metrics.RunData, error) {
		outs := outcomes(params)
		if outs == nil {
			return nil, ErrNoBaselinePoint
		}
		return candidateRuns(metrics.Gate{Component: component}, outs, costPerHour), nil
	}}
}

// OutcomeRuns are a point's repeats as g's comparison reads them (whole,
// or g's dataset component or replica), priced at costPerHour.
func OutcomeRuns(g metrics.Gate, outs []*Outcome, costPerHour float64) []metrics.RunData {
	return candidateRuns(g, outs, costPerHour)
}

// value is g's value in the baseline's same point (the mean over its
// repeats), shown next to an absolute gate; nil without a baseline.
func (b *Baseline) value(g metrics.Gate, params plan.Params) *float64 {
	if b == nil {
		return nil
	}
	runs, err := b.Runs(params, g.Component)
	if err != nil || len(runs) == 0 {
		return nil
	}
	var sum float64
	for _, r := range runs {
		v, err := g.MeasureRun(r)
		if err != nil {
			return nil
		}
		sum += v
	}
	v := sum / float64(len(runs))
	return &v
}
