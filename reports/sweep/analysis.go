package sweep

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// capacity is the capacity analysis of one experiment, shared by the table
// and summary.json so both always say the same thing. Every index is into
// res.Points (run order).
type capacity struct {
	param string
	// order holds the points the analyses use, in increasing load: every
	// point that ran to its end and has a value for param.
	order []int
	// note says why no analysis was possible ("" when it was).
	note       string
	knees      []knee
	maxGoodput int // -1 when no point measured goodput
	saturation *saturation
}

// knee is metrics.Knee for one gate.
type knee struct {
	gate  metrics.Gate
	found bool
	point int
	// everyLoad is set when the gate held at every load tried: the knee is
	// then only a lower bound, like an unsaturated sweep's capacity.
	everyLoad bool
}

// saturation is the sweep's saturation point in words.
type saturation struct {
	saturated bool
	point     int
	reason    string
	// source says who decided: "until_saturation" when the sweep grew the
	// load until a rule held, "rule" when the default rule was applied to
	// the points of a grid (by the runtime or here).
	source string
}

// analyze runs the capacity analyses of res along param for gates.
func analyze(res *runtime.ExperimentResult, param string, gates []metrics.Gate) *capacity {
	c := &capacity{param: param, maxGoodput: -1}
	c.order, c.note = loadOrder(res, param)
	lps := c.loadPoints(res)
	for _, g := range gates {
		k := knee{gate: g, point: -1}
		if i, ok := metrics.Knee(lps, g); ok && c.note == "" {
			k.found, k.point, k.everyLoad = true, c.order[i], i == len(lps)-1
		}
		c.knees = append(c.knees, k)
	}
	if i, ok := metrics.MaxGoodput(lps); ok && c.note == "" {
		c.maxGoodput = c.order[i]
	}
	c.saturation = c.saturationOf(res, lps)
	return c
}

// loadOrder sorts the usable points by load. A sweep with two points at
// one load (a grid over a second parameter) has no single load axis, so it
// gets a note instead of an order.
func loadOrder(res *runtime.ExperimentResult, param string) ([]int, string) {
	var order []int
	seen := map[float64]bool{}
	for i, p := range res.Points {
		v, ok := p.Params[param]
		if !ok || partial(&p) || p.Outcome == nil {
			continue
		}
		if seen[v] {
			return nil, fmt.Sprintf("not analysed: several points ran at %s, so the sweep has no single %s axis", loadName(param, v), param)
		}
		seen[v] = true
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		x, y := res.Points[a].Params[param], res.Points[b].Params[param]
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	if len(order) == 0 {
		return nil, "not analysed: no point ran to its end"
	}
	return order, ""
}

func (c *capacity) loadPoints(res *runtime.ExperimentResult) []metrics.LoadPoint {
	lps := make([]metrics.LoadPoint, len(c.order))
	for k, i := range c.order {
		p := &res.Points[i]
		lps[k] = metrics.LoadPoint{Load: p.Params[c.param], Summary: &p.Outcome.Summary}
	}
	return lps
}

// saturationOf takes the sweep's own verdict when it made one
// (until_saturation), else applies the design article's default rule to
// the points in load order. Only a load (concurrency, rate) can saturate a
// server: a token-length sweep holds the load fixed.
func (c *capacity) saturationOf(res *runtime.ExperimentResult, lps []metrics.LoadPoint) *saturation {
	source := "rule"
	if e := res.Experiment; e != nil && e.Sweep != nil && e.Sweep.Saturation != nil {
		source = "until_saturation"
	}
	if s := res.Saturation; s != nil {
		return &saturation{saturated: s.Saturated, point: s.Point, reason: s.Reason, source: source}
	}
	if c.note != "" || (c.param != metrics.ParamConcurrency && c.param != metrics.ParamRate) {
		return nil
	}
	i, reason, ok := metrics.DefaultSaturationRule().Check(lps, c.param)
	return &saturation{saturated: ok, point: c.order[i], reason: reason, source: source}
}

// partial reports a point cut short by an interrupt: shown, but too short
// to be judged with the others.
func partial(p *runtime.PointResult) bool {
	return p.Outcome != nil && p.Outcome.Interrupted
}

// LoadParam is the parameter an experiment's capacity is measured along:
// the one its adaptive sweep grows or its one-parameter grid varies, else
// the first of concurrency, rate, input_tokens and output_tokens whose
// value differs between points, else the load of its single point.
func LoadParam(res *runtime.ExperimentResult) string {
	if e := res.Experiment; e != nil && e.Sweep != nil {
		switch s := e.Sweep; {
		case s.Saturation != nil:
			return s.Saturation.Over
		case s.Search != nil:
			return s.Search.Over
		case len(s.Params) == 1:
			return s.Params[0].Name
		}
	}
	names := []string{metrics.ParamConcurrency, metrics.ParamRate, metrics.ParamInputTokens, metrics.ParamOutputTokens}
	for _, name := range names {
		if varies(res.Points, name) {
			return name
		}
	}
	for _, name := range names {
		if len(res.Points) > 0 {
			if _, ok := res.Points[0].Params[name]; ok {
				return name
			}
		}
	}
	return metrics.ParamConcurrency
}

func varies(points []runtime.PointResult, name string) bool {
	seen := map[float64]bool{}
	for _, p := range points {
		if v, ok := p.Params[name]; ok {
			seen[v] = true
		}
	}
	return len(seen) > 1
}

// loadName is a load in words: "concurrency 16", "rate 2.5".
func loadName(param string, v float64) string {
	return param + " " + strconv.FormatFloat(v, 'f', -1, 64)
}

// latencyMetrics are the metrics whose gates define a knee on the console:
// a knee is where latency stops meeting its SLO.
var latencyMetrics = map[string]bool{"ttft": true, "ttst": true, "itl": true, "request_latency": true, "ttfo": true}

// tableGate is the gate the table's knee line uses: the experiment's
// first latency gate that applies at every point (no @), not a baseline.
func tableGate(e *runtime.Experiment) (metrics.Gate, bool) {
	if e == nil {
		return metrics.Gate{}, false
	}
	for _, g := range e.Gates {
		if len(g.At) == 0 && !g.Baseline && latencyMetrics[g.Metric] {
			return g, true
		}
	}
	return metrics.Gate{}, false
}

// kneeGates are the gates summary.json reports a knee for: every gate of
// the experiment but baseline gates (which need the baseline's value),
// once each.
func kneeGates(e *runtime.Experiment) []metrics.Gate {
	if e == nil {
		return nil
	}
	var gates []metrics.Gate
	seen := map[string]bool{}
	for _, g := range e.Gates {
		if g.Baseline || seen[g.String()] {
			continue
		}
		seen[g.String()] = true
		gates = append(gates, g)
	}
	return gates
}
