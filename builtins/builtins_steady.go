package builtins

import (
	"cmp"
	"fmt"
	"time"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// defaultSteadyMaxDuration caps a duration="auto" point that gives no
// max_duration: long enough for thousands of requests at any useful load,
// short enough that a point that never settles does not hold a sweep for
// long.
const defaultSteadyMaxDuration = 10 * time.Minute

// steadyValue is what steady() returns: the rule of an auto point, its
// caps still unresolved (which one applies depends on requests="auto" or
// duration="auto").
type steadyValue struct {
	object
	rule metrics.SteadyRule
}

// steady(ci="5%", confidence=0.95, min_requests=100, max_requests=None,
// max_duration=None): when an auto point (requests="auto" or
// duration="auto") has measured enough — the confidence interval of the
// p50 and p99 of its TTFT and ITL (request latency when not streaming)
// within ±ci — with at least min_requests kept after the warm-up, and
// what caps it: max_requests (default 10000) for requests="auto",
// max_duration (default "10m") for duration="auto" (SPEC §12).
func steadyBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	ci, conf := ratio(metrics.DefaultSteadyCI), number(metrics.DefaultSteadyConfidence)
	minReq, maxReq := metrics.DefaultSteadyMinRequests, 0
	var maxDur starlark.Value
	if err := unpack(b.Name(), args, kwargs, "ci?", &ci, "confidence?", &conf, "min_requests?", &minReq,
		"max_requests?", &maxReq, "max_duration??", &maxDur); err != nil {
		return nil, err
	}
	r := metrics.SteadyRule{CI: float64(ci), Confidence: float64(conf), MinRequests: minReq, MaxRequests: maxReq}
	if maxDur != nil {
		var d duration
		if err := d.Unpack(maxDur); err != nil {
			return nil, paramError(b.Name(), "max_duration", err)
		}
		if d <= 0 {
			return nil, paramErrorf(b.Name(), "max_duration", "got %s, want a duration > 0", maxDur)
		}
		r.MaxDuration = int64(d)
	}
	switch {
	case r.CI <= 0 || r.CI >= 0.5:
		return nil, paramErrorf(b.Name(), "ci", "got %s, want a half-width between 0%% and 50%% such as \"5%%\"", percent(r.CI))
	case r.Confidence <= 0 || r.Confidence >= 1:
		return nil, paramErrorf(b.Name(), "confidence", "got %s, want a level between 0 and 1 such as 0.95", num(r.Confidence))
	case r.MinRequests < metrics.MinSteadyRequests:
		return nil, paramErrorf(b.Name(), "min_requests", "got %d, want an int >= %d", r.MinRequests, metrics.MinSteadyRequests)
	case r.MaxRequests != 0 && r.MaxRequests < r.MinRequests:
		return nil, paramErrorf(b.Name(), "max_requests", "got %d, want an int >= min_requests (%d)", r.MaxRequests, r.MinRequests)
	}
	return newSteadyValue(r), nil
}

func newSteadyValue(r metrics.SteadyRule) *steadyValue {
	desc := fmt.Sprintf("steady(ci=%s, confidence=%s, min_requests=%d", quote(percent(r.CI)), num(r.Confidence), r.MinRequests)
	if r.MaxRequests > 0 {
		desc += fmt.Sprintf(", max_requests=%d", r.MaxRequests)
	}
	if r.MaxDuration > 0 {
		desc += ", max_duration=" + quote(durationText(time.Duration(r.MaxDuration)))
	}
	attrs := starlark.StringDict{"ci": float(r.CI), "confidence": float(r.Confidence), "min_requests": integer(r.MinRequests),
		"max_requests": noneOr(r.MaxRequests, integer),
		"max_duration": noneOr(r.MaxDuration, func(d int64) starlark.Value { return str(durationText(time.Duration(d))) })}
	return &steadyValue{object: newObject("steady", desc+")", attrs, true), rule: r}
}

// isAuto reports whether a requests= or duration= argument is "auto".
func isAuto(v starlark.Value) bool {
	s, ok := v.(starlark.String)
	return ok && s == "auto"
}

// planSteady settles an auto point: requests="auto" caps it at
// max_requests, duration="auto" at max_duration; steady_state without
// either, or the other kind's cap, is an error naming the parameter.
func (a *experimentArgs) planSteady(fn string, e *plan.Experiment) error {
	autoReq, autoDur := isAuto(a.requests), isAuto(a.length)
	var rule metrics.SteadyRule
	switch s := a.steady.(type) {
	case nil:
		rule = metrics.SteadyRule{CI: metrics.DefaultSteadyCI, Confidence: metrics.DefaultSteadyConfidence, MinRequests: metrics.DefaultSteadyMinRequests}
	case *steadyValue:
		rule = s.rule
	default:
		return paramErrorf(fn, "steady_state", "got %s, want steady(...)", a.steady.Type())
	}
	switch {
	case !autoReq && !autoDur:
		if a.steady != nil {
			return paramErrorf(fn, "steady_state", `applies to requests="auto" or duration="auto", got neither`)
		}
		return nil
	case autoReq && rule.MaxDuration > 0:
		return paramErrorf(fn, "steady_state", `max_duration caps duration="auto"; requests="auto" is capped by max_requests`)
	case autoDur && rule.MaxRequests > 0:
		return paramErrorf(fn, "steady_state", `max_requests caps requests="auto"; duration="auto" is capped by max_duration`)
	case autoReq:
		rule.MaxRequests = cmp.Or(rule.MaxRequests, metrics.DefaultSteadyMaxRequests)
		e.Requests = rule.MaxRequests
	default:
		rule.MaxDuration = cmp.Or(rule.MaxDuration, int64(defaultSteadyMaxDuration))
		e.Duration = time.Duration(rule.MaxDuration)
	}
	e.Steady = &rule
	return nil
}
