package builtins

import (
	"cmp"
	"fmt"
	"slices"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// newResults is check()'s argument: a frozen dict from experiment name to
// its results (SPEC §6 results[name]).
func newResults(results []runtime.ExperimentResult) *starlark.Dict {
	d := starlark.NewDict(len(results))
	for i := range results {
		r := &results[i]
		name := ""
		if r.Experiment != nil {
			name = r.Experiment.Name
		}
		_ = d.SetKey(starlark.String(name), newResultValue(name, r))
	}
	d.Freeze()
	return d
}

// resultValue is one experiment's results: .points in load order,
// .knee(gate), .repeats, .saturation (the last point before gains stopped,
// None when the sweep never saturated) with .saturation_reason in words,
// .max_goodput (the point with the highest goodput) and .search (the best
// point a search() found).
type resultValue struct {
	object
	res   *runtime.ExperimentResult
	byRun []*pointValue // the points in run order, as Capacity indexes them
	// kneeAsked is set once check() has called knee(): its first gate is
	// the knee the plots mark.
	kneeAsked bool
}

func newResultValue(name string, r *runtime.ExperimentResult) *resultValue {
	var exp plan.Experiment
	if r.Experiment != nil {
		exp = *r.Experiment
	}
	r.Analysis() // a result assembled by hand gets its analysis here
	points := make([]*pointValue, len(r.Points))
	for i := range r.Points {
		points[i] = newPointValue(&exp, &r.Points[i])
	}
	byRun := slices.Clone(points) // run order, which the result indexes use
	// Load order: what knee() scans and what a user indexing points
	// expects, whatever order a grid ran in.
	slices.SortStableFunc(points, func(a, b *pointValue) int { return cmp.Compare(a.load, b.load) })
	list := make([]starlark.Value, len(points))
	for i, p := range points {
		list[i] = p
	}
	rv := &resultValue{res: r, byRun: byRun}
	attrs := starlark.StringDict{
		"name": str(name), "points": starlark.NewList(list), "repeats": integer(max(exp.Repeats, 1)),
		"saturation": starlark.None, "saturation_reason": starlark.None,
		"max_goodput": starlark.None, "search": starlark.None,
	}
	addCapacity(attrs, r.Capacity, byRun)
	attrs["knee"] = starlark.NewBuiltin("knee", rv.knee)
	rv.object = newObject("results", fmt.Sprintf("results(%s, %d points)", quote(name), len(points)), attrs, false)
	return rv
}

// knee(gate) is the highest-load point meeting gate before the first point
// that misses it, scanning in load order, or None when the lowest load
// already misses it: the design article's "knee" (the last point with p99
// TTFT < 500 ms), which for a noisy metric should not jump past a failure
// to a lucky point beyond it. A point where the metric was not measured
// misses the gate. It is the experiment's Capacity that answers, so the
// knee check() sees is the one the plots mark: the first gate check()
// asks about becomes the knee marked on the sweep plots and table.
func (r *resultValue) knee(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var text string
	if err := unpack(b.Name(), args, kwargs, "gate", &text); err != nil {
		return nil, err
	}
	gate, err := metrics.ParseGate(text)
	if err != nil {
		return nil, paramError(b.Name(), "gate", err)
	}
	if gate.Baseline {
		return nil, paramErrorf(b.Name(), "gate", "a knee against a baseline is %v", runtime.ErrNotSupported)
	}
	c := r.res.Capacity
	if c == nil {
		return starlark.None, nil
	}
	k := c.KneeFor(r.res, gate)
	if !r.kneeAsked {
		r.kneeAsked = true
		c.Knee = &k
	}
	if !k.Found {
		return starlark.None, nil
	}
	return r.byRun[k.Point], nil
}

// pointValue is one measured point: its load parameters (None where they
// do not apply) and every metric of its summary, times in ms as in every
// report.
type pointValue struct {
	object
	params  map[string]float64
	summary *metrics.Summary
	load    float64
}

func newPointValue(exp *plan.Experiment, pr *runtime.PointResult) *pointValue {
	p := &pointValue{params: pr.Params}
	attrs := starlark.StringDict{"label": str(pr.Params.Label())}
	for _, name := range []string{metrics.ParamConcurrency, metrics.ParamRate, metrics.ParamInputTokens, metrics.ParamOutputTokens} {
		attrs[name] = starlark.None
		if v, ok := pr.Params[name]; ok {
			attrs[name] = paramValue(name, v)
		}
	}
	p.load = cmp.Or(pr.Params[metrics.ParamConcurrency], pr.Params[metrics.ParamRate])
	if pr.Outcome != nil {
		p.summary = &pr.Outcome.Summary
	}
	run := metrics.RunData{Summary: p.summary, CostPerHour: exp.CostPerHour}
	if pr.Outcome != nil && pr.Outcome.Telemetry != nil {
		run.Telemetry = &pr.Outcome.Telemetry.Summary
	}
	addMetrics(attrs, run)
	attrs["components"] = componentValues(exp, pr)
	attrs["stages"] = stageValues(exp, pr)
	attrs["gates"] = gateResults(pr.Gates)
	attrs["passed"] = starlark.Bool(allPassed(pr.Gates))
	p.object = newObject("point", "point("+quote(pr.Params.Label())+")", attrs, false)
	return p
}

// componentValues is a point's per-component metrics by dataset component
// name (SPEC §6 p.components["chat"].ttft.p99): an empty dict unless the
// dataset is a mix.
func componentValues(exp *plan.Experiment, pr *runtime.PointResult) *starlark.Dict {
	var parts []runtime.ComponentSummary
	if pr.Outcome != nil {
		parts = pr.Outcome.Components
	}
	d := starlark.NewDict(len(parts))
	for i := range parts {
		c := &parts[i]
		attrs := starlark.StringDict{"name": str(c.Name)}
		addMetrics(attrs, metrics.RunData{Summary: &c.Summary, CostPerHour: exp.CostPerHour})
		_ = d.SetKey(str(c.Name), newObjectValue("component", "component("+quote(c.Name)+")", attrs))
	}
	d.Freeze()
	return d
}

// paramValue is an int for whole-number parameters, a float for rate.
func paramValue(name string, v float64) starlark.Value {
	if name == metrics.ParamRate {
		return starlark.Float(v)
	}
	return starlark.MakeInt64(int64(v))
}

func allPassed(gates []runtime.GateResult) bool {
	for _, g := range gates {
		if !g.Passed {
			return false
		}
	}
	return true
}

// gateResults lists the experiment's gates evaluated at a point, each with
// the gate as written, whether it passed and the measured-vs-limit text.
func gateResults(gates []runtime.GateResult) *starlark.List {
	list := make([]starlark.Value, len(gates))
	for i, g := range gates {
		msg := g.Gate.Describe(g.Measured)
		if g.Err != nil {
			msg = g.Err.Error()
		}
		attrs := starlark.StringDict{"gate": str(g.Gate.Source), "passed": starlark.Bool(g.Passed), "message": str(msg)}
		list[i] = newObjectValue("gate_result", "gate_result("+quote(g.Gate.Source)+")", attrs)
	}
	return starlark.NewList(list)
}

// addCapacity sets the capacity attributes from the run's analysis.
func addCapacity(attrs starlark.StringDict, c *runtime.Capacity, byRun []*pointValue) {
	if c == nil {
		return
	}
	if sat := c.Saturation; sat != nil {
		attrs["saturation_reason"] = str(sat.Reason)
		if sat.Saturated && sat.Point >= 0 {
			attrs["saturation"] = byRun[sat.Point]
		}
	}
	if s := c.Search; s != nil && s.Found && s.Point >= 0 {
		attrs["search"] = byRun[s.Point]
	}
	if c.MaxGoodput >= 0 {
		attrs["max_goodput"] = byRun[c.MaxGoodput]
	}
}
