package builtins

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// sweepValue is what sweep(), until_saturation() and search() return: a
// plan.Sweep for experiment(sweep=...). Equal declarations are equal.
type sweepValue struct {
	object
	plan plan.Sweep
}

func newSweepValue(s plan.Sweep, kind string) *sweepValue {
	attrs := starlark.StringDict{"kind": str(kind)}
	return &sweepValue{object: newObject("sweep", s.String(), attrs, true), plan: s}
}

// over returns the load parameter a sweep varies ("" for a grid over token
// lengths only).
func (s *sweepValue) over() string {
	switch {
	case s.plan.Saturation != nil:
		return s.plan.Saturation.Over
	case s.plan.Search != nil:
		return s.plan.Search.Over
	}
	for _, p := range s.plan.Params {
		if p.Name == metrics.ParamConcurrency || p.Name == metrics.ParamRate || p.Name == metrics.ParamUsers {
			return p.Name
		}
	}
	return ""
}

// sweepParams are sweep()'s keywords with the least value each allows;
// concurrency and token lengths must be whole numbers.
var sweepParams = []sweepParam{
	{metrics.ParamConcurrency, ">=", 1, true},
	{metrics.ParamRate, ">", 0, false},
	{metrics.ParamUsers, ">=", 1, true},
	{metrics.ParamInputTokens, ">=", 0, true},
	{metrics.ParamOutputTokens, ">=", 1, true},
}

type sweepParam struct {
	name  string
	op    string // ">=" or ">" least
	least float64
	whole bool
}

// sweep(concurrency=|rate=|users=|input_tokens=|output_tokens=): the points to
// measure; several keywords make the grid of every combination.
func sweepBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	lists := make([]numberList, len(sweepParams))
	pairs := make([]any, 0, 2*len(sweepParams))
	for i, p := range sweepParams {
		pairs = append(pairs, p.name+"??", &lists[i])
	}
	if err := unpack(b.Name(), args, kwargs, pairs...); err != nil {
		return nil, err
	}
	var s plan.Sweep
	for i, p := range sweepParams {
		if lists[i] == nil {
			continue
		}
		if err := p.check(lists[i]); err != nil {
			return nil, paramError(b.Name(), p.name, err)
		}
		s.Params = append(s.Params, plan.SweepParam{Name: p.name, Values: lists[i]})
	}
	switch {
	case len(s.Params) == 0:
		return nil, fmt.Errorf("%s: got no values, want at least one of concurrency, rate, input_tokens or output_tokens", b.Name())
	case lists[0] != nil && lists[1] != nil:
		return nil, paramErrorf(b.Name(), "rate", "cannot be swept with concurrency: a point is a closed or an open loop")
	}
	return newSweepValue(s, "grid"), nil
}

func (p sweepParam) check(vals []float64) error {
	if len(vals) == 0 {
		return errors.New("got an empty list, want at least one value")
	}
	for i, v := range vals {
		switch {
		case p.whole && v != math.Trunc(v):
			return fmt.Errorf("at index %d: got %s, want a whole number", i, num(v))
		case v < p.least || (p.op == ">" && v == p.least):
			return fmt.Errorf("at index %d: got %s, want a value %s %s", i, num(v), p.op, num(p.least))
		case slices.Index(vals[:i], v) >= 0:
			return fmt.Errorf("at index %d: %s appears twice", i, num(v))
		}
	}
	return nil
}

// pow2(lo, hi): the powers of two from lo to hi inclusive — GenAI-Perf's
// --sweep-range lo:hi, so pow2(1, 256) is [1, 2, 4, ..., 256]. A lo that
// is not a power of two starts at the next one.
func pow2Builtin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var lo, hi int
	if err := unpack(b.Name(), args, kwargs, "lo", &lo, "hi", &hi); err != nil {
		return nil, err
	}
	switch {
	case lo < 1:
		return nil, paramErrorf(b.Name(), "lo", "got %d, want an int >= 1", lo)
	case hi < lo:
		return nil, paramErrorf(b.Name(), "hi", "got %d, want an int >= lo (%d)", hi, lo)
	case hi > 1<<40:
		return nil, paramErrorf(b.Name(), "hi", "got %d, want at most %d", hi, 1<<40)
	}
	var vals []starlark.Value
	for p := 1; p <= hi; p *= 2 {
		if p >= lo {
			vals = append(vals, starlark.MakeInt(p))
		}
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("%s: no power of two between %d and %d", b.Name(), lo, hi)
	}
	return starlark.NewList(vals), nil
}

// until_saturation(start=1, factor=2, limit=1024, growth="5%",
// ttft_factor=2.0, over="concurrency"): grow the load geometrically until
// throughput grows less than growth per step or p99 TTFT exceeds
// ttft_factor times its lowest-load value — the design article's rule for
// a sweep that is long enough to show the knee.
func untilSaturationBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	t := plan.Saturation{Start: 1, Factor: 2, Limit: 1024, Growth: 0.05, TTFTFactor: 2}
	start, factor, limit, ttft := number(t.Start), number(t.Factor), number(t.Limit), number(t.TTFTFactor)
	growth := ratio(t.Growth)
	over := oneOf(metrics.ParamConcurrency, metrics.ParamConcurrency, metrics.ParamRate)
	if err := unpack(b.Name(), args, kwargs, "start?", &start, "factor?", &factor, "limit?", &limit,
		"growth?", &growth, "ttft_factor?", &ttft, "over?", &over); err != nil {
		return nil, err
	}
	t = plan.Saturation{Over: over.value, Start: float64(start), Factor: float64(factor),
		Limit: float64(limit), Growth: float64(growth), TTFTFactor: float64(ttft)}
	whole := t.Over == metrics.ParamConcurrency
	switch {
	case t.Start <= 0 || (whole && t.Start != math.Trunc(t.Start)):
		return nil, paramErrorf(b.Name(), "start", "got %s, want a %s > 0", num(t.Start), loadUnit(whole))
	case t.Factor <= 1:
		return nil, paramErrorf(b.Name(), "factor", "got %s, want a number > 1", num(t.Factor))
	case t.Limit < t.Start:
		return nil, paramErrorf(b.Name(), "limit", "got %s, want a number >= start (%s)", num(t.Limit), num(t.Start))
	case t.Growth <= 0 || t.Growth >= 1:
		return nil, paramErrorf(b.Name(), "growth", "got %s, want a percentage between 0%% and 100%%", percent(t.Growth))
	case t.TTFTFactor <= 1:
		return nil, paramErrorf(b.Name(), "ttft_factor", "got %s, want a number > 1", num(t.TTFTFactor))
	}
	return newSweepValue(plan.Sweep{Saturation: &t}, "until_saturation"), nil
}

func loadUnit(whole bool) string {
	if whole {
		return "whole number"
	}
	return "number"
}

// search(gate, over="concurrency", lo=1, hi=1024, precision="5%"): the
// largest load meeting gate, found by bisection between lo and hi.
func searchBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var gateText string
	over := oneOf(metrics.ParamConcurrency, metrics.ParamConcurrency, metrics.ParamRate)
	lo, hi, precision := number(1), number(1024), ratio(0.05)
	if err := unpack(b.Name(), args, kwargs, "gate", &gateText, "over?", &over, "lo?", &lo, "hi?", &hi,
		"precision?", &precision); err != nil {
		return nil, err
	}
	gate, err := metrics.ParseGate(gateText)
	if err != nil {
		return nil, paramError(b.Name(), "gate", err)
	}
	t := plan.Search{Gate: gate, Over: over.value, Lo: float64(lo), Hi: float64(hi), Precision: float64(precision)}
	switch {
	case len(gate.At) > 0:
		return nil, paramErrorf(b.Name(), "gate", "got %q, want a gate without @: the search chooses the point", gateText)
	case gate.Baseline:
		return nil, paramErrorf(b.Name(), "gate", "a search against a baseline is %v", runtime.ErrNotSupported)
	case t.Lo <= 0:
		return nil, paramErrorf(b.Name(), "lo", "got %s, want a number > 0", num(t.Lo))
	case t.Hi <= t.Lo:
		return nil, paramErrorf(b.Name(), "hi", "got %s, want a number > lo (%s)", num(t.Hi), num(t.Lo))
	case t.Precision <= 0 || t.Precision >= 1:
		return nil, paramErrorf(b.Name(), "precision", "got %s, want a percentage between 0%% and 100%%", percent(t.Precision))
	}
	return newSweepValue(plan.Sweep{Search: &t}, "search"), nil
}
