// Package ab owns the interleaved A/B run (SPEC §13, docs/compare.md
// "A/B"): an experiment whose endpoint (the candidate, side B) is
// measured against a baseline endpoint (side A) in rounds that alternate
// between them (ABBA) or run at once (duet), both sides sending the same
// prompts round by round. Each round is one run of the point measured
// by runtime's one executor and written by the caller's observer for
// that side, as repeats are; the experiment's baseline gates are then
// judged by the one judge on the rounds as pairs
// (metrics.MethodPairedRounds), so drift of the machine, the network or
// a shared server during the run cancels in each pair. The rounds' plan
// and order are runtime/engine's (PlanRounds, RunRounds).
package ab

import (
	"context"
	"fmt"
	"slices"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// Result is what an A/B experiment measured.
type Result struct {
	// Sides are each side's experiment result, indexed by engine.Side: a
	// point's runs are its rounds in round order. Side B's points carry
	// the gate verdicts (its baseline gates judged, paired, against side
	// A's rounds); side A's only its absolute gates.
	Sides [2]runtime.ExperimentResult
	// Baseline names side A as verdicts speak of it ("ab=URL").
	Baseline string
}

// Observers follow each side's runs: Observers[engine.SideA] writes side
// A's files, [SideB] side B's.
type Observers [2]runtime.Observer

// Run measures every point of e (e.AB set) as an interleaved A/B run:
// both endpoints are resolved first (a simulator started once per side,
// for the whole run), so an endpoint that is down stops the run before
// anything is sent, naming its side.
func Run(ctx context.Context, e *plan.Experiment, opts runtime.Options, obs Observers) (*Result, error) {
	if e.AB == nil {
		return nil, failure.Inputf("experiment %q has no ab=", e.Name)
	}
	if err := e.AB.Validate(); err != nil {
		return nil, failure.Inputf("experiment %q: ab: %w", e.Name, err)
	}
	sides, stop, err := resolveSides(e)
	if err != nil {
		return nil, err
	}
	defer stop()
	for s := range obs {
		if obs[s] == nil {
			obs[s] = quiet{}
		}
	}
	res := &Result{Baseline: "ab=" + plan.RedactURL(e.AB.Baseline.URL)}
	for s := range sides {
		res.Sides[s].Experiment = sides[s]
	}
	points, err := e.Points()
	if err != nil {
		return res, err
	}
	for _, spec := range points {
		if ctx.Err() != nil {
			break
		}
		if err := res.measure(ctx, sides, opts, spec, obs); err != nil {
			return res, &runtime.PointError{Experiment: e.Name, Point: spec.Params.Label(), Err: err}
		}
	}
	return res, nil
}

// SidePlans are the experiment as each side runs it, indexed by
// engine.Side: side A with the baseline endpoint and only the absolute
// gates (the baseline gates ask about B), side B as written. Each side's
// files describe and checkpoint its own plan.
func SidePlans(e *plan.Experiment) [2]*plan.Experiment {
	a, b := *e, *e
	a.Endpoint = e.AB.Baseline
	a.Gates = slices.DeleteFunc(slices.Clone(e.Gates), func(g metrics.Gate) bool { return g.Baseline })
	return [2]*plan.Experiment{&a, &b}
}

// resolveSides are SidePlans with each endpoint resolved once.
func resolveSides(e *plan.Experiment) ([2]*plan.Experiment, func(), error) {
	sides := SidePlans(e)
	var stops []func()
	stop := func() {
		for _, s := range stops {
			s()
		}
	}
	for s, x := range sides {
		ep, st, err := runtime.Reachable(x.Endpoint)
		if err != nil {
			stop()
			return sides, nil, sideError(engine.Side(s), x.Endpoint, err)
		}
		x.Endpoint, stops = ep, append(stops, st)
	}
	return sides, stop, nil
}

// sideError names the side an error belongs to, keeping its class.
func sideError(s engine.Side, ep plan.Endpoint, err error) error {
	what := "candidate (endpoint=, -u)"
	if s == engine.SideA {
		what = "baseline (ab=, --baseline-url)"
	}
	return fmt.Errorf("side %s, the %s %s: %w", s, what, plan.RedactURL(ep.URL), err)
}

// measure runs one point's rounds and judges them.
func (r *Result) measure(ctx context.Context, sides [2]*plan.Experiment, opts runtime.Options, spec plan.PointSpec, obs Observers) error {
	var jobs [2]runtime.Job
	for s, e := range sides {
		job, err := runtime.NewJob(e, opts, spec)
		if err != nil {
			return err
		}
		if len(job.Sessions) > 0 {
			return failure.Inputf("an A/B point sends single prompts; conversations are not split into rounds yet")
		}
		jobs[s] = job
	}
	ab := sides[engine.SideB].AB
	warmup := jobs[engine.SideB].Point.Warmup
	if ab.Warmup != nil {
		warmup = *ab.Warmup
	}
	rounds, err := engine.PlanRounds(jobs[engine.SideB].Point, ab.Rounds, ab.Mode == plan.ABModeDuet, warmup, len(jobs[engine.SideB].Requests))
	if err != nil {
		return failure.Inputf("%w", err)
	}
	outs := [2][]*runtime.Outcome{make([]*runtime.Outcome, ab.Rounds), make([]*runtime.Outcome, ab.Rounds)}
	held := heldPairs(obs, sides, spec.Params, ab.Rounds, ab.Mode == plan.ABModeDuet)
	for s := range outs {
		copy(outs[s], held[s])
	}
	rounds = remaining(rounds, len(held[engine.SideA]), warmup)
	err = engine.RunRounds(ctx, rounds, transport.NewClock(), func(ctx context.Context, round engine.Round) error {
		key := runtime.PointKey{Experiment: sides[round.Side].Name, Params: spec.Params, Repeat: round.Index + 1}
		out, err := runtime.RunWatched(ctx, roundJob(jobs[round.Side], round), key, obs[round.Side])
		if err != nil {
			return sideError(round.Side, sides[round.Side].Endpoint, err)
		}
		outs[round.Side][round.Index] = out
		if out.Aborted != nil {
			return out.Aborted
		}
		return nil
	})
	n := pairedRounds(outs)
	if n == 0 {
		return err
	}
	a, b := outs[engine.SideA][:n], outs[engine.SideB][:n]
	against := runtime.PairedBaseline(r.Baseline, a, sides[engine.SideA].CostPerHour)
	points := [2]runtime.PointResult{
		runtime.NewPointResult(sides[engine.SideA], nil, spec.Params, a),
		runtime.NewPointResult(sides[engine.SideB], against, spec.Params, b),
	}
	for s := range points {
		r.Sides[s].Points = append(r.Sides[s].Points, points[s])
		p := &r.Sides[s].Points[len(r.Sides[s].Points)-1]
		if derr := obs[s].PointDone(p); err == nil {
			err = derr
		}
	}
	return err
}

// heldPairs are the leading pairs of rounds the observers already hold
// (runtime.Resumer: the checkpoint of an interrupted run, with --resume).
// Only whole pairs are taken, so every pair is still two rounds measured
// side by side; each pair asks first for the round that ran second (B in
// an even ABBA pair, A in an odd one), so a pair cut between its rounds
// is measured again without its first round said to be kept.
func heldPairs(obs Observers, sides [2]*plan.Experiment, params plan.Params, rounds int, duet bool) [2][]*runtime.Outcome {
	var held [2][]*runtime.Outcome
	for i := range rounds {
		order := [2]engine.Side{engine.SideB, engine.SideA}
		if i%2 == 1 && !duet {
			order = [2]engine.Side{engine.SideA, engine.SideB}
		}
		var pair [2]*runtime.Outcome
		for _, s := range order {
			r, ok := obs[s].(runtime.Resumer)
			if !ok {
				return held
			}
			out, done := r.Finished(runtime.PointKey{Experiment: sides[s].Name, Params: params, Repeat: i + 1})
			if !done {
				return held
			}
			pair[s] = out
		}
		for s := range held {
			held[s] = append(held[s], pair[s])
		}
	}
	return held
}

// remaining are the rounds from pair k on, the first of each side's
// sent after the side's warm-up.
func remaining(rounds []engine.Round, k, warmup int) []engine.Round {
	var left []engine.Round
	for _, r := range rounds {
		if r.Index < k {
			continue
		}
		if r.Index == k {
			r.Point.Warmup = warmup
		}
		left = append(left, r)
	}
	return left
}

// roundJob is a side's job cut to one round: its share of the stop, its
// warm-up (first round only), its shared start (duet), and the prompts
// from the round's first on, the same on both sides.
func roundJob(job runtime.Job, round engine.Round) runtime.Job {
	job.Point.Stop, job.Point.Warmup, job.Point.StartAt = round.Point.Stop, round.Point.Warmup, round.Point.StartAt
	k := round.First % len(job.Requests)
	job.Requests = append(slices.Clone(job.Requests[k:]), job.Requests[:k]...)
	job.Entries = append(slices.Clone(job.Entries[k:]), job.Entries[:k]...)
	return job
}

// pairedRounds is how many leading rounds both sides completed: an
// interrupted run is judged on the pairs it has.
func pairedRounds(outs [2][]*runtime.Outcome) int {
	n := 0
	for n < len(outs[0]) && outs[0][n] != nil && outs[1][n] != nil {
		n++
	}
	return n
}

// quiet watches a side nobody asked to watch: its records are dropped.
type quiet struct{}

func (quiet) RunStarting(runtime.PointKey, *runtime.Job) (runtime.RunWatch, error) {
	return quiet{}, nil
}
func (quiet) PointDone(*runtime.PointResult) error { return nil }
func (quiet) Records() runtime.RecordWriter        { return nil }
func (quiet) Progress() *engine.Progress           { return nil }
func (quiet) Finish(*runtime.Outcome) error        { return nil }
