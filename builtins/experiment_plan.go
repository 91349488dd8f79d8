package builtins

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// planLoad sets the experiment's dataset, load and sweep, refusing the
// combinations that could not run: a sweep over a parameter the load does
// not have, a token sweep over a dataset that does not sample lengths, a
// replay without a trace.
func (a *experimentArgs) planLoad(fn string, e *plan.Experiment) error {
	data, ok := a.data.(*datasetValue)
	if !ok {
		return paramErrorf(fn, "dataset", "got %s, want dataset", a.data.Type())
	}
	load, ok := a.traffic.(*loadValue)
	if !ok {
		return paramErrorf(fn, "traffic", "got %s, want traffic", a.traffic.Type())
	}
	e.Load, e.Dataset = load.plan, data.src
	if m, ok := data.src.(dataset.Mix); ok {
		m.Seed = e.Seed // a mix draws its components with the experiment's seed
		e.Dataset = m
	}
	if err := conversationFits(e, load, data); err != nil {
		return paramError(fn, "dataset", err)
	}
	if err := stagesFit(load, data, a.sweep); err != nil {
		return paramError(fn, "traffic", err)
	}
	if ranks := e.Endpoint.API == transport.Rankings; ranks != (data.kind == "rankings") {
		return paramErrorf(fn, "dataset", `api="rankings" and a rankings(queries=, passages=) dataset go together, got api %q and %s`, e.Endpoint.API, data.src)
	}
	if data.media && e.Endpoint.API != transport.Chat && e.Endpoint.API != transport.ImageRetrieval {
		return paramErrorf(fn, "dataset", "%s carries pictures or audio, but the endpoint's api is %q: %w", data.src, e.Endpoint.API, errMediaAPI)
	}
	if e.Endpoint.API == transport.ImageRetrieval && !data.media {
		return paramErrorf(fn, "dataset", `api="image_retrieval" sends pictures, but %s has none: give synthetic(images = image(...)) or a jsonl() file with image fields`, data.src)
	}
	if e.Sessions > 0 && !data.converses() && !load.plan.Paced() {
		return paramErrorf(fn, "sessions", "counts conversations, but %s is single-turn: use requests= or a conversations() dataset", data.src)
	}
	if load.plan.Replay() {
		if _, ok := data.src.(dataset.Trace); !ok {
			return paramErrorf(fn, "traffic", "replay() needs a trace() dataset, got %s", data.src)
		}
		if !data.info.Timed {
			return paramErrorf(fn, "traffic", "replay() needs timestamps, but %s has none", data.src)
		}
	}
	if a.sweep == nil {
		return nil
	}
	sw, ok := a.sweep.(*sweepValue)
	if !ok {
		return paramErrorf(fn, "sweep", "got %s, want sweep", a.sweep.Type())
	}
	if err := sweepFits(sw, load, data); err != nil {
		return paramError(fn, "sweep", err)
	}
	sweep := sw.plan
	sweep.Params = slices.Clone(sweep.Params)
	e.Sweep = &sweep
	return nil
}

// scheduleFits refuses an open loop whose requests would take more than
// a day to send at its rate, at the traffic's own rate and at every
// point of a grid sweep, by the rule the CLI's --request-rate follows
// (runtime.CheckSchedule): rate(1e-9) planned its first send 30 years
// ahead and the run hung.
func scheduleFits(fn string, e *plan.Experiment) error {
	count, what := e.Requests+e.Warmup, "requests"
	if e.Sessions > 0 {
		count, what = e.Sessions+e.Warmup, "sessions"
	}
	if err := runtime.CheckSchedule(e.Load, count, what); err != nil {
		return paramError(fn, "traffic", err)
	}
	if e.Sweep == nil || e.Adaptive() {
		return nil // an adaptive sweep chooses its loads while it runs
	}
	points, err := e.Points()
	if err != nil {
		return nil // the plan's validation says what is wrong with the sweep
	}
	for _, p := range points {
		if err := runtime.CheckSchedule(p.Load, count, what); err != nil {
			return paramError(fn, "sweep", fmt.Errorf("point %s: %w", p.Params.Label(), err))
		}
	}
	return nil
}

// conversationFits refuses multi-turn sessions for an API that takes one
// flat prompt: its requests could not carry the history.
func conversationFits(e *plan.Experiment, load *loadValue, data *datasetValue) error {
	multi := data.converses() || load.plan.Paced()
	if !multi || e.Endpoint.API.Conversational() {
		return nil
	}
	what := data.src.String()
	if load.plan.Paced() {
		what = load.plan.String() + " (its turns are sessions)"
	}
	return fmt.Errorf("%s sends conversations, which need api \"chat\", \"responses\" or \"messages\" (role-tagged messages that carry the history), got api %q",
		what, e.Endpoint.API)
}

func sweepFits(sw *sweepValue, load *loadValue, data *datasetValue) error {
	if load.plan.Replay() {
		return fmt.Errorf("got %s, but a replay() load cannot be swept", sw)
	}
	if over := sw.over(); over != "" && over != load.kind() {
		return fmt.Errorf("%s varies %s, want traffic=%s(...), got traffic=%s", sw, over, over, load)
	}
	for _, p := range sw.plan.Params {
		if (p.Name == metrics.ParamInputTokens || p.Name == metrics.ParamOutputTokens) && data.kind != "synthetic" {
			return fmt.Errorf("sweeping %s needs a synthetic() dataset, got %s", p.Name, data.src)
		}
	}
	return nil
}

// parseGates parses every gate now, so a malformed one is a load error
// (SPEC §6); the error wraps the *metrics.GateError with its column.
func parseGates(fn string, texts []string, currency string) ([]metrics.Gate, error) {
	gates := make([]metrics.Gate, 0, len(texts))
	for _, t := range texts {
		g, err := metrics.ParseGate(t)
		if err == nil {
			err = g.PriceIn(currency) // a cost gate is in cost_per_hour's currency
		}
		if err != nil {
			return nil, paramError(fn, "gates", err)
		}
		gates = append(gates, g)
	}
	return gates, nil
}

// gatesReachPoints refuses a gate whose @ conditions match no point of a
// grid sweep: it would never be evaluated, and a CI gate must never pass
// by default. Saturation and search sweeps choose their points while
// running, so their gates are checked then. A baseline gate may come
// without baseline=: the command line may give one (run --baseline), and
// the command refuses a baseline gate with nothing to compare with.
func gatesReachPoints(fn string, e *plan.Experiment) error {
	for _, g := range e.Gates {
		if err := componentExists(g, e.Dataset); err != nil {
			return paramError(fn, "gates", err)
		}
		if err := replicaExists(g, e.Endpoint); err != nil {
			return paramError(fn, "gates", err)
		}
		if err := stageExists(g, e.Load); err != nil {
			return paramError(fn, "gates", err)
		}
	}
	if e.Sweep != nil && e.Sweep.Search != nil {
		if err := componentExists(e.Sweep.Search.Gate, e.Dataset); err != nil {
			return paramError(fn, "sweep", err)
		}
	}
	if e.Sweep != nil && e.Sweep.Params == nil {
		return nil
	}
	values := pointValues(e)
	for _, g := range e.Gates {
		for _, c := range g.At {
			vals, swept := values[c.Param]
			if !slices.Contains(vals, c.Value) {
				return paramErrorf(fn, "gates", "gate %q applies to no point: %s", g.Source, pointsHave(c.Param, vals, swept))
			}
		}
	}
	return nil
}

// replicaExists refuses a gate on a replica the endpoint does not have.
func replicaExists(g metrics.Gate, e plan.Endpoint) error {
	if g.Replica == nil {
		return nil
	}
	if n := len(e.URLs); *g.Replica >= n {
		if n < 2 {
			return fmt.Errorf("gate %q judges replica %d, but the endpoint has one URL: give endpoint(url=[...]) replicas or drop replica=", g.Source, *g.Replica)
		}
		return fmt.Errorf("gate %q judges replica %d, but the endpoint's URLs are replicas 0 to %d", g.Source, *g.Replica, n-1)
	}
	return nil
}

// componentExists refuses a gate on a dataset component the experiment's
// dataset does not have: it could never be measured.
func componentExists(g metrics.Gate, src dataset.Source) error {
	if g.Component == "" {
		return nil
	}
	m, ok := src.(dataset.Mix)
	if !ok {
		return fmt.Errorf("gate %q judges component %q, but the dataset is %s, not a mix()", g.Source, g.Component, src)
	}
	names := m.ComponentNames()
	if len(names) < 2 {
		return fmt.Errorf("gate %q judges component %q, but a mix of one dataset is reported as a whole: drop the component", g.Source, g.Component)
	}
	if !slices.Contains(names, g.Component) {
		return fmt.Errorf("gate %q judges component %q, but the mix has %s", g.Source, g.Component, strings.Join(quoteAll(names), ", "))
	}
	return nil
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = quote(n)
	}
	return out
}

// pointValues lists, per load parameter, the values the experiment's
// points will have.
func pointValues(e *plan.Experiment) map[string][]float64 {
	values := map[string][]float64{}
	switch {
	case e.Load.Concurrency > 0:
		values[metrics.ParamConcurrency] = []float64{float64(e.Load.Concurrency)}
	case e.Load.Rate > 0:
		values[metrics.ParamRate] = []float64{e.Load.Rate}
	}
	if e.Sweep != nil {
		for _, p := range e.Sweep.Params {
			values[p.Name] = p.Values
		}
	}
	return values
}

func pointsHave(param string, vals []float64, known bool) string {
	if !known {
		return "no point has a " + param + " (it is neither the load nor swept)"
	}
	texts := make([]string, len(vals))
	for i, v := range vals {
		texts[i] = num(v)
	}
	return fmt.Sprintf("the points have %s %s", param, strings.Join(texts, ", "))
}

// parseGoodput turns {"ttft": "500ms", "itl": "50ms"} into goodput SLOs
// in GenAI-Perf's units (ms; tokens/s for the per-user throughput). A
// bare number is refused for a time: GenAI-Perf reads ms where every
// other duration here is seconds, and a silent 1000× is worse than an
// error.
func parseGoodput(fn string, d *starlark.Dict) ([]metrics.SLO, error) {
	if d == nil {
		return nil, nil
	}
	var slos []metrics.SLO
	for _, kv := range d.Items() {
		k, ok := kv[0].(starlark.String)
		if !ok {
			return nil, paramErrorf(fn, "goodput", "got %s key, want a metric name", kv[0].Type())
		}
		m, err := metrics.ParseGoodputMetric(string(k))
		if err != nil {
			return nil, paramError(fn, "goodput", err)
		}
		v, err := sloValue(m, kv[1])
		if err != nil {
			return nil, paramErrorf(fn, "goodput", "key %s: %v", k, err)
		}
		slos = append(slos, metrics.SLO{Metric: m, Value: v})
	}
	return slos, nil
}

func sloValue(m metrics.GoodputMetric, v starlark.Value) (float64, error) {
	if m == metrics.GoodputTPSUser {
		var n number
		if err := n.Unpack(v); err != nil {
			return 0, err
		}
		if n <= 0 {
			return 0, fmt.Errorf("got %s, want tokens/s > 0", v)
		}
		return float64(n), nil
	}
	if _, ok := v.(starlark.String); !ok {
		return 0, fmt.Errorf(`got %s, want a duration string such as "500ms"`, v.Type())
	}
	var d duration
	if err := d.Unpack(v); err != nil {
		return 0, err
	}
	return float64(time.Duration(d)) / float64(time.Millisecond), nil
}
