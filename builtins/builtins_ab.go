package builtins

import (
	"fmt"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/runtime/plan"
)

// abValue is what ab() returns: the A/B settings of an experiment, its
// baseline endpoint included.
type abValue struct {
	object
	plan plan.AB
}

// ab(baseline, rounds=8, mode="abba", warmup=None): makes an experiment
// an interleaved A/B run (SPEC §13; docs/scenarios.md "A/B"): its
// endpoint is the candidate, baseline the endpoint it is judged against,
// each point cut into rounds per side (ABBA order, or "duet": both sides
// at once), warmup requests sent to each side before its first round
// (the experiment's warmup when None). experiment(ab = old) takes an
// endpoint alone with these defaults.
func abBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var target, warmup starlark.Value
	rounds, mode := plan.DefaultABRounds, plan.ABModeABBA
	if err := unpack(b.Name(), args, kwargs, "baseline", &target, "rounds?", &rounds, "mode?", &mode, "warmup??", &warmup); err != nil {
		return nil, err
	}
	ep, err := experimentEndpoint(b.Name(), target)
	if err != nil {
		return nil, paramError(b.Name(), "baseline", fmt.Errorf("got %s, want endpoint or sim", target.Type()))
	}
	a := plan.AB{Baseline: ep.plan, Rounds: rounds, Mode: mode}
	if rounds < 2 {
		return nil, paramErrorf(b.Name(), "rounds", "got %d, want an int >= 2 (each side's rounds are paired with the other's)", rounds)
	}
	if mode != plan.ABModeABBA && mode != plan.ABModeDuet {
		return nil, paramErrorf(b.Name(), "mode", "got %q, want %q or %q", mode, plan.ABModeABBA, plan.ABModeDuet)
	}
	if warmup != nil {
		var n int
		if err := starlark.UnpackArg(warmup, &n); err != nil || n < 0 {
			return nil, paramErrorf(b.Name(), "warmup", "got %s, want an int >= 0", warmup)
		}
		a.Warmup = &n
	}
	return newABValue(a, ep), nil
}

func newABValue(a plan.AB, ep *endpointValue) *abValue {
	attrs := starlark.StringDict{"baseline": ep, "rounds": starlark.MakeInt(a.Rounds), "mode": str(a.Mode)}
	desc := fmt.Sprintf("ab(%s, rounds=%d, mode=%q)", plan.RedactURL(a.Baseline.URL), a.Rounds, a.Mode)
	return &abValue{object: newObject("ab", desc, attrs, true), plan: a}
}

// planAB reads experiment(ab=): an ab(...) value, or an endpoint alone
// (ab()'s defaults). An A/B experiment's rounds are its repeats and its
// baseline is side A, so repeats= and baseline= are refused with it.
func (a *experimentArgs) planAB(fn string, e *plan.Experiment) error {
	if a.ab == nil || a.ab == starlark.None {
		return nil
	}
	switch v := a.ab.(type) {
	case *abValue:
		ab := v.plan
		e.AB = &ab
	case *endpointValue, *simValue:
		ep, _ := experimentEndpoint(fn, v)
		e.AB = &plan.AB{Baseline: ep.plan, Rounds: plan.DefaultABRounds, Mode: plan.ABModeABBA}
	default:
		return paramErrorf(fn, "ab", "got %s, want ab(...), endpoint or sim", a.ab.Type())
	}
	switch {
	case e.Repeats > 1:
		return paramErrorf(fn, "repeats", "got %d with ab=, want 1: an A/B point's rounds are its runs (ab(rounds=))", e.Repeats)
	case e.Baseline != "":
		return paramErrorf(fn, "baseline", "got %q with ab=, want one of them: an A/B experiment's baseline is its ab= endpoint", e.Baseline)
	case e.Requests > 0 && e.Requests < e.AB.Rounds:
		return paramErrorf(fn, "ab", "got %d rounds for %d requests per side, want at least one request per round", e.AB.Rounds, e.Requests)
	case e.Sessions > 0 || e.Steady != nil:
		return paramErrorf(fn, "ab", "an A/B point stops by requests or duration, not sessions or auto")
	}
	return nil
}
