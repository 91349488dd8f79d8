package builtins

import (
	"fmt"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/runtime"
)

// loadValue is how requests are issued (SPEC §3): concurrency(), rate()
// and replay() each carry a runtime.Load. Equal parameters make equal
// loads.
type loadValue struct {
	object
	plan runtime.Load
}

func newLoadValue(l runtime.Load, attrs starlark.StringDict) *loadValue {
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

// concurrency(n): a closed loop keeping exactly n requests in flight.
func concurrencyBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n int
	if err := unpack(b.Name(), args, kwargs, "n", &n); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, paramErrorf(b.Name(), "n", "got %d, want an int >= 1", n)
	}
	return newLoadValue(runtime.Load{Concurrency: n}, starlark.StringDict{"concurrency": integer(n)}), nil
}

// rate(r, arrival="poisson", burstiness=1.0, max_concurrency=None): an
// open loop sending r requests per second on a seeded schedule.
// burstiness is the gamma shape, so it only means something for
// arrival="gamma"; elsewhere anything but 1 is refused rather than ignored.
func rateBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		r          number
		arrival    = oneOf("poisson", "poisson", "constant", "gamma")
		burstiness = number(1)
		maxConc    starlark.Value
	)
	if err := unpack(b.Name(), args, kwargs, "r", &r, "arrival?", &arrival,
		"burstiness?", &burstiness, "max_concurrency??", &maxConc); err != nil {
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
	l := runtime.Load{Rate: float64(r), Arrival: runtime.Arrival(arrival.value),
		Burstiness: float64(burstiness), MaxConcurrency: capN}
	attrs := starlark.StringDict{"rate": float(l.Rate), "arrival": str(arrival.value),
		"burstiness": float(l.Burstiness), "max_concurrency": noneOr(capN, integer)}
	return newLoadValue(l, attrs), nil
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
	return newLoadValue(runtime.Load{ReplaySpeed: float64(speed)}, starlark.StringDict{"speed": float(float64(speed))}), nil
}
