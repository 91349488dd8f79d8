package builtins

import (
	"fmt"
	"time"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/runtime/plan"
)

// loadValue is how requests are issued (SPEC §3): concurrency(), rate()
// and replay() each carry a plan.Load. Equal parameters make equal
// loads.
type loadValue struct {
	object
	plan plan.Load
}

func newLoadValue(l plan.Load, attrs starlark.StringDict) *loadValue {
	kind := "concurrency"
	switch {
	case l.Replay():
		kind = "replay"
	case l.Paced():
		kind = "users"
	case !l.Closed():
		kind = "rate"
	}
	attrs["kind"] = str(kind)
	return &loadValue{object: newObject("traffic", l.String(), attrs, true), plan: l}
}

func (l *loadValue) kind() string { return string(l.attrs["kind"].(starlark.String)) }

// concurrency(n, ramp_up=None): a closed loop keeping exactly n requests
// in flight; with ramp_up its workers start spread over that long, so
// the load grows from 1 to n.
func concurrencyBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n int
	var ramp starlark.Value
	if err := unpack(b.Name(), args, kwargs, "n", &n, "ramp_up??", &ramp); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, paramErrorf(b.Name(), "n", "got %d, want an int >= 1", n)
	}
	up, err := rampUp(b.Name(), ramp)
	if err != nil {
		return nil, err
	}
	return newLoadValue(plan.Load{Concurrency: n, RampUp: up}, rampAttrs(up, starlark.StringDict{"concurrency": integer(n)})), nil
}

// rampUp unpacks an optional ramp_up= duration, > 0 when given.
func rampUp(fn string, v starlark.Value) (time.Duration, error) {
	if v == nil {
		return 0, nil
	}
	var d duration
	if err := d.Unpack(v); err != nil {
		return 0, paramError(fn, "ramp_up", err)
	}
	if d <= 0 {
		return 0, paramErrorf(fn, "ramp_up", "got %s, want a duration > 0", v)
	}
	return time.Duration(d), nil
}

// rampAttrs adds .ramp_up (a duration string, or None) to a load's attributes.
func rampAttrs(up time.Duration, attrs starlark.StringDict) starlark.StringDict {
	attrs["ramp_up"] = noneOr(up, func(d time.Duration) starlark.Value { return str(d.String()) })
	return attrs
}

// rate(r, arrival="poisson", burstiness=1.0, max_concurrency=None, ramp_up=None): an
// open loop sending r requests per second on a seeded schedule.
// burstiness is the gamma shape, so it only means something for
// arrival="gamma"; elsewhere anything but 1 is refused rather than ignored.
func rateBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		r          number
		arrival    = oneOf("poisson", "poisson", "constant", "gamma")
		burstiness = number(1)
		maxConc    starlark.Value
		ramp       starlark.Value
	)
	if err := unpack(b.Name(), args, kwargs, "r", &r, "arrival?", &arrival,
		"burstiness?", &burstiness, "max_concurrency??", &maxConc, "ramp_up??", &ramp); err != nil {
		return nil, err
	}
	up, err := rampUp(b.Name(), ramp)
	if err != nil {
		return nil, err
	}
	switch {
	case r <= 0:
		return nil, paramErrorf(b.Name(), "r", "got %s, want requests per second > 0", num(float64(r)))
	case burstiness <= 0:
		return nil, paramErrorf(b.Name(), "burstiness", "got %s, want a number > 0", num(float64(burstiness)))
	case burstiness != 1 && arrival.value != "gamma":
		return nil, paramErrorf(b.Name(), "burstiness", `got %s with arrival=%q, want arrival="gamma" (burstiness is its shape)`,
			num(float64(burstiness)), arrival.value)
	}
	capN, err := optionalCount(maxConc)
	if err != nil {
		return nil, paramError(b.Name(), "max_concurrency", err)
	}
	l := plan.Load{Rate: float64(r), Arrival: plan.Arrival(arrival.value),
		Burstiness: float64(burstiness), MaxConcurrency: capN, RampUp: up}
	attrs := starlark.StringDict{"rate": float(l.Rate), "arrival": str(arrival.value),
		"burstiness": float(l.Burstiness), "max_concurrency": noneOr(capN, integer)}
	return newLoadValue(l, rampAttrs(up, attrs)), nil
}

// optionalCount unpacks an optional count that must be >= 1 when given
// (nil when absent or None), so an explicit 0 is an error, not "unset".
func optionalCount(v starlark.Value) (int, error) {
	if v == nil {
		return 0, nil
	}
	var n int
	if err := starlark.UnpackArg(v, &n); err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, fmt.Errorf("got %d, want an int >= 1", n)
	}
	return n, nil
}

// replay(speed=1.0): send each trace entry at its own timestamp, the
// trace's clock sped up by speed. It needs a timed trace() dataset, which
// experiment() checks.
func replayBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	speed := number(1)
	if err := unpack(b.Name(), args, kwargs, "speed?", &speed); err != nil {
		return nil, err
	}
	if speed <= 0 {
		return nil, paramErrorf(b.Name(), "speed", "got %s, want a number > 0", num(float64(speed)))
	}
	return newLoadValue(plan.Load{ReplaySpeed: float64(speed)}, starlark.StringDict{"speed": float(float64(speed))}), nil
}
