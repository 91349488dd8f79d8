package builtins

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// defaultRequests is the request count of an experiment that gives
// neither requests nor duration: enough for a p99 backed by a handful of
// samples, small enough that a first run against a real server is quick.
const defaultRequests = 100

// experimentValue is what experiment() returns: a complete, validated
// plan.Experiment, and the call stack that made it, so problems found
// only after main() returns (two experiments with one name) still point
// at a line of the script.
type experimentValue struct {
	object
	plan  plan.Experiment
	stack starlark.CallStack
}

// experimentArgs are experiment()'s parameters as unpacked, before they
// are checked against each other.
type experimentArgs struct {
	name                    string
	target, data, traffic   starlark.Value
	requests, length, sweep starlark.Value
	sessions                starlark.Value
	steady                  starlark.Value
	errorBudget             starlark.Value
	warmup, repeats, seed   int
	gates, telemetry        stringList
	goodput                 *starlark.Dict
	costPerHour             number
	currency                string
	baseline                string
	tags                    stringMap
	samePrompts             bool
	ab                      starlark.Value
}

// experiment(name, endpoint, dataset, traffic, requests=, duration=,
// warmup=0, sweep=None, gates=[], goodput={}, repeats=1, telemetry=[],
// cost_per_hour=None, baseline=None, tags={}, seed=0, error_budget=None,
// currency="EUR", same_prompts=False, ab=None):
// one experiment of
// the scenario (SPEC §6). requests and duration are exclusive; with
// neither, each point measures defaultRequests requests (a replay, its
// whole trace).
func experimentBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	a := experimentArgs{repeats: 1}
	if err := unpack(b.Name(), args, kwargs, "name", &a.name, "endpoint", &a.target, "dataset", &a.data,
		"traffic", &a.traffic, "requests??", &a.requests, "duration??", &a.length, "warmup?", &a.warmup,
		"sweep??", &a.sweep, "gates?", &a.gates, "goodput?", &a.goodput, "repeats?", &a.repeats,
		"telemetry?", &a.telemetry, "cost_per_hour??", &a.costPerHour, "baseline??", &a.baseline,
		"tags?", &a.tags, "seed?", &a.seed, "error_budget??", &a.errorBudget, "currency?", &a.currency,
		"sessions??", &a.sessions, "same_prompts?", &a.samePrompts, "steady_state??", &a.steady, "ab??", &a.ab); err != nil {
		return nil, err
	}
	e, ep, err := a.build(b.Name())
	if err != nil {
		return nil, err
	}
	if e.Baseline != "" {
		if e.Baseline, err = sessionOf(thread).files.place(e.Baseline); err != nil {
			return nil, paramError(b.Name(), "baseline", err)
		}
	}
	attrs := experimentAttrs(e)
	attrs["endpoint"], attrs["dataset"], attrs["traffic"] = ep, a.data, a.traffic
	attrs["sweep"], attrs["ab"] = a.sweep, a.ab
	if a.sweep == nil {
		attrs["sweep"] = starlark.None
	}
	if a.ab == nil {
		attrs["ab"] = starlark.None
	}
	stack := thread.CallStack()
	desc := describeExperiment(e, a.traffic.String())
	return &experimentValue{object: newObject("experiment", desc, attrs, false),
		plan: *e, stack: stack[:len(stack)-1]}, nil
}

// build checks each argument and assembles the plan; every error names
// the parameter at fault. It also returns the endpoint value used (a bare
// sim(...) becomes one).
func (a *experimentArgs) build(fn string) (*plan.Experiment, *endpointValue, error) {
	e := &plan.Experiment{Name: a.name, Warmup: a.warmup, Repeats: a.repeats, Seed: uint64(a.seed),
		CostPerHour: float64(a.costPerHour), Currency: a.currency, Baseline: a.baseline,
		PointSeeds: !a.samePrompts} // fresh prompts per point unless asked (SPEC §12)
	if err := checkName(fn, a.name); err != nil {
		return nil, nil, err
	}
	ep, err := experimentEndpoint(fn, a.target)
	if err != nil {
		return nil, nil, err
	}
	e.Endpoint = ep.plan
	e.Telemetry = union(a.telemetry, ep.serverMetrics)
	e.ServerMetricsOff = ep.serverMetricsOff
	if err := a.checkCounts(fn, e); err != nil {
		return nil, nil, err
	}
	if err := a.planLoad(fn, e); err != nil {
		return nil, nil, err
	}
	if err := scheduleFits(fn, e); err != nil {
		return nil, nil, err
	}
	if err := a.planChecks(fn, e); err != nil {
		return nil, nil, err
	}
	if err := a.planAB(fn, e); err != nil {
		return nil, nil, err
	}
	return e, ep, nil
}

// planChecks sets what is measured and judged: gates, goodput SLOs,
// telemetry and tags.
func (a *experimentArgs) planChecks(fn string, e *plan.Experiment) error {
	var err error
	if e.Gates, err = parseGates(fn, a.gates, cmp.Or(e.Currency, "EUR")); err != nil {
		return err
	}
	if err := gatesReachPoints(fn, e); err != nil {
		return err
	}
	if e.Goodput, err = parseGoodput(fn, a.goodput); err != nil {
		return err
	}
	if e.ErrorBudget, err = parseErrorBudget(a.errorBudget); err != nil {
		return paramError(fn, "error_budget", err)
	}
	for i, u := range a.telemetry {
		if err := checkHTTPURL(u); err != nil {
			return paramErrorf(fn, "telemetry", "at index %d: %v", i, err)
		}
	}
	if c := a.currency; c != "" && (len(c) > 8 || strings.ContainsFunc(c, unicode.IsSpace)) {
		return paramErrorf(fn, "currency", "got %q, want a short label such as EUR or USD", c)
	}
	if len(a.tags.keys) > 0 {
		e.Tags = make(map[string]string, len(a.tags.keys))
		for i, k := range a.tags.keys {
			e.Tags[k] = a.tags.values[i]
		}
	}
	return nil
}

// parseErrorBudget reads error_budget=: "5%" or a fraction such as 0.05;
// None is no budget.
func parseErrorBudget(v starlark.Value) (*plan.ErrorBudget, error) {
	switch v := v.(type) {
	case nil, starlark.NoneType:
		return nil, nil
	case starlark.String:
		return plan.ParseErrorBudget(string(v))
	case starlark.Float, starlark.Int:
		f, _ := starlark.AsFloat(v)
		return plan.NewErrorBudget(f)
	}
	return nil, fmt.Errorf("got %s, want a share of requests such as \"5%%\" or 0.05", v.Type())
}

// namePattern keeps experiment names usable as folder names in OUT/.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

func checkName(fn, name string) error {
	if !namePattern.MatchString(name) {
		return paramErrorf(fn, "name", "got %q, want letters, digits, '_', '-' or '.' (it names the results folder)", name)
	}
	return nil
}

// experimentEndpoint accepts an endpoint() or a bare sim(...), which
// stands for endpoint(url=sim(...), model="llmbench-sim").
func experimentEndpoint(fn string, v starlark.Value) (*endpointValue, error) {
	switch v := v.(type) {
	case *endpointValue:
		return v, nil
	case *simValue:
		return newEndpointValue(plan.Endpoint{URL: v.url, Model: simDefaultModel, API: transport.Chat,
			Stream: true, TokenCount: "auto", Timeout: defaultTimeout, IdleTimeout: transport.DefaultIdleTimeout}, nil), nil
	}
	return nil, paramErrorf(fn, "endpoint", "got %s, want endpoint or sim", v.Type())
}

// checkCounts settles how long each point measures and checks the counts.
func (a *experimentArgs) checkCounts(fn string, e *plan.Experiment) error {
	switch {
	case stagedTraffic(a.traffic) != nil:
		if err := a.stagedCounts(fn); err != nil {
			return err
		}
		e.Duration = stagedTraffic(a.traffic).StagesDuration()
	case a.sessions != nil && (a.requests != nil || a.length != nil):
		return paramErrorf(fn, "sessions", "got sessions with requests or duration, want one of the three")
	case a.sessions != nil:
		if err := starlark.UnpackArg(a.sessions, &e.Sessions); err != nil {
			return paramError(fn, "sessions", err)
		}
		if e.Sessions < 1 {
			return paramErrorf(fn, "sessions", "got %d, want an int >= 1", e.Sessions)
		}
	case a.requests != nil && a.length != nil:
		return paramErrorf(fn, "duration", "got both requests and duration, want one of them")
	case isAuto(a.length):
	case a.length != nil:
		var d duration
		if err := d.Unpack(a.length); err != nil {
			return paramError(fn, "duration", err)
		}
		if e.Duration = time.Duration(d); e.Duration <= 0 {
			return paramErrorf(fn, "duration", "got %s, want a duration > 0", a.length)
		}
	case isAuto(a.requests):
	case a.requests != nil:
		if s, ok := a.requests.(starlark.String); ok {
			return paramErrorf(fn, "requests", `got %s, want an int >= 1 or "auto"`, s)
		}
		if err := starlark.UnpackArg(a.requests, &e.Requests); err != nil {
			return paramError(fn, "requests", err)
		}
		if e.Requests < 1 {
			return paramErrorf(fn, "requests", "got %d, want an int >= 1", e.Requests)
		}
	default:
		if l, ok := a.traffic.(*loadValue); !ok || !l.plan.Replay() {
			e.Requests = defaultRequests // a replay sends its whole trace
		}
	}
	if err := a.planSteady(fn, e); err != nil {
		return err
	}
	for _, c := range []struct {
		param     string
		got, want int
	}{{"warmup", a.warmup, 0}, {"repeats", a.repeats, 1}, {"seed", a.seed, 0}} {
		if c.got < c.want {
			return paramErrorf(fn, c.param, "got %d, want an int >= %d", c.got, c.want)
		}
	}
	if a.costPerHour < 0 {
		return paramErrorf(fn, "cost_per_hour", "got %s, want a number >= 0", num(float64(a.costPerHour)))
	}
	return nil
}

func union(a, b []string) []string {
	var out []string
	for _, s := range append(append([]string{}, a...), b...) {
		if indexOf(out, s) < 0 {
			out = append(out, s)
		}
	}
	return out
}

func experimentAttrs(e *plan.Experiment) starlark.StringDict {
	gates := make([]string, len(e.Gates))
	for i, g := range e.Gates {
		gates[i] = g.Source
	}
	tags := starlark.NewDict(len(e.Tags))
	for k, v := range e.Tags {
		_ = tags.SetKey(starlark.String(k), starlark.String(v))
	}
	return starlark.StringDict{
		"name": str(e.Name), "requests": noneOr(e.Requests, integer), "sessions": noneOr(e.Sessions, integer),
		"duration": noneOr(e.Duration, func(d time.Duration) starlark.Value { return str(durationText(d)) }),
		"warmup":   integer(e.Warmup), "repeats": integer(e.Repeats), "seed": starlark.MakeUint64(e.Seed),
		"gates": strList(gates), "telemetry": strList(e.Telemetry), "tags": tags,
		"baseline": noneOr(e.Baseline, str), "cost_per_hour": noneOr(e.CostPerHour, float), "currency": str(cmp.Or(e.Currency, "EUR")),
		"error_budget": noneOr(e.ErrorBudget, func(b *plan.ErrorBudget) starlark.Value { return str(b.String()) }),
		"same_prompts": starlark.Bool(!e.PointSeeds),
		"steady_state": noneOr(e.Steady, func(r *metrics.SteadyRule) starlark.Value { return newSteadyValue(*r) }),
	}
}

func describeExperiment(e *plan.Experiment, load string) string {
	s := fmt.Sprintf("experiment(name=%s, endpoint=%s, dataset=%s, traffic=%s",
		quote(e.Name), e.Endpoint.String(), e.Dataset, load)
	switch {
	case e.Steady != nil && e.Duration > 0:
		s += `, duration="auto", steady_state=` + newSteadyValue(*e.Steady).String()
	case e.Steady != nil:
		s += `, requests="auto", steady_state=` + newSteadyValue(*e.Steady).String()
	case e.Duration > 0:
		s += ", duration=" + quote(durationText(e.Duration))
	case e.Requests > 0: // a replay without either sends its whole trace
		s += fmt.Sprintf(", requests=%d", e.Requests)
	case e.Sessions > 0:
		s += fmt.Sprintf(", sessions=%d", e.Sessions)
	}
	if e.Sweep != nil {
		s += ", sweep=" + e.Sweep.String()
	}
	if len(e.Gates) > 0 {
		gates := make([]string, len(e.Gates))
		for i, g := range e.Gates {
			gates[i] = quote(g.Source)
		}
		s += ", gates=[" + strings.Join(gates, ", ") + "]"
	}
	if e.ErrorBudget != nil {
		s += ", error_budget=" + quote(e.ErrorBudget.String())
	}
	if !e.PointSeeds {
		s += ", same_prompts=True"
	}
	return s + ")"
}
