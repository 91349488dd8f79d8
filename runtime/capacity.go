package runtime

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// Capacity is what an experiment's points say about the server's capacity:
// the load axis, the knee of each gate, the point of most goodput, where
// throughput saturated and what a search() found. It is computed once per
// experiment (AnalyzeCapacity) and only read afterwards, so the console
// table, summary.json, the plots, report.html and check() can never
// disagree. Every point index is into ExperimentResult.Points (run order).
type Capacity struct {
	// Param is the load axis: metrics.ParamConcurrency, ParamRate, ...
	Param string
	// Order holds the points the analyses use, in increasing load: every
	// point that ran to its end and has a value for Param.
	Order []int
	// Note says why knees, max goodput and saturation are missing ("" when
	// the analysis was possible).
	Note string
	// Knees has one entry per gate of the experiment (baseline gates
	// aside), in the experiment's order.
	Knees []Knee
	// Knee is the knee marked on plots and named under the sweep table:
	// of the gate check() passed to knee(), else of the experiment's first
	// latency gate; nil when there is neither.
	Knee *Knee
	// MaxGoodput is the point serving the most requests within their SLOs
	// (-1 when no point measured goodput).
	MaxGoodput int
	// Saturation is nil when the sweep has no load axis to saturate along.
	Saturation *SaturationResult
	// Search is what a search() sweep found; nil for other sweeps.
	Search *SearchResult
}

// Knee is the highest-load point meeting Gate before the first that misses
// it (metrics.Knee).
type Knee struct {
	Gate  metrics.Gate
	Found bool
	Point int
	// EveryLoad is set when the gate held at every load tried: the knee is
	// then only a lower bound, like an unsaturated sweep's capacity.
	EveryLoad bool
}

// The sources of a saturation verdict.
const (
	// SaturationByRule: the default rule judged a grid's points.
	SaturationByRule = "rule"
	// SaturationBySweep: until_saturation() grew the load until its rule
	// held (or its limit).
	SaturationBySweep = "until_saturation"
)

// AnalyzeCapacity analyses res's points. decided carries what an adaptive
// sweep decided while running (its saturation verdict or search result);
// it is nil for a grid, whose saturation the default rule judges here.
func AnalyzeCapacity(res *ExperimentResult, decided *Capacity) *Capacity {
	c := &Capacity{Param: LoadParam(res), MaxGoodput: -1}
	c.Order, c.Note = loadOrder(res, c.Param)
	lps := c.loadPoints(res)
	for _, g := range kneeGates(res.Experiment) {
		c.Knees = append(c.Knees, c.knee(lps, g, res))
	}
	if g, ok := firstLatencyGate(res.Experiment); ok {
		k := c.knee(lps, g, res)
		c.Knee = &k
	}
	if i, ok := metrics.MaxGoodput(lps); ok && c.Note == "" {
		c.MaxGoodput = c.Order[i]
	}
	if decided != nil {
		c.Saturation, c.Search = decided.Saturation, decided.Search
	}
	if c.Saturation == nil {
		c.Saturation = c.ruleSaturation(lps)
	}
	return c
}

// Analysis is the result's capacity analysis: the one made when the
// experiment ended or was read back, else — for a result assembled by hand
// — made now from its points by the same function, once.
func (r *ExperimentResult) Analysis() *Capacity {
	if r.Capacity == nil {
		r.Capacity = AnalyzeCapacity(r, nil)
	}
	return r.Capacity
}

// KneeFor is g's knee along the analysed points: what check()'s knee(g)
// answers.
func (c *Capacity) KneeFor(res *ExperimentResult, g metrics.Gate) Knee {
	return c.knee(c.loadPoints(res), g, res)
}

// knee scans the analysed points g applies to (all of them unless g has an
// "@"), in load order.
func (c *Capacity) knee(lps []metrics.LoadPoint, g metrics.Gate, res *ExperimentResult) Knee {
	k := Knee{Gate: g, Point: -1}
	if c.Note != "" {
		return k
	}
	var sel []metrics.LoadPoint
	var idx []int
	for j, lp := range lps {
		p := &res.Points[c.Order[j]]
		if g.Applies(p.Params) {
			lp.Summary = p.Outcome.gateSummary(g) // a component gate judges its component
			sel, idx = append(sel, lp), append(idx, c.Order[j])
		}
	}
	if i, ok := metrics.Knee(sel, g); ok {
		k.Found, k.Point, k.EveryLoad = true, idx[i], i == len(sel)-1
	}
	return k
}

// loadOrder sorts the usable points by load. A sweep with two points at
// one load (a grid over a second parameter) has no single load axis, so it
// gets a note instead of an order.
func loadOrder(res *ExperimentResult, param string) ([]int, string) {
	var order []int
	seen := map[float64]bool{}
	for i, p := range res.Points {
		v, ok := p.Params[param]
		if !ok || p.Outcome == nil || p.Outcome.Interrupted {
			continue
		}
		if seen[v] {
			return nil, fmt.Sprintf("not analysed: several points ran at %s %s, so the sweep has no single %s axis",
				param, strconv.FormatFloat(v, 'f', -1, 64), param)
		}
		seen[v] = true
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(res.Points[a].Params[param], res.Points[b].Params[param])
	})
	if len(order) == 0 {
		return nil, "not analysed: no point ran to its end"
	}
	return order, ""
}

// loadPoints are the analysed points, in load order, as the metrics
// package takes them.
func (c *Capacity) loadPoints(res *ExperimentResult) []metrics.LoadPoint {
	lps := make([]metrics.LoadPoint, len(c.Order))
	for k, i := range c.Order {
		p := &res.Points[i]
		lps[k] = metrics.LoadPoint{Load: p.Params[c.Param], Summary: &p.Outcome.Summary}
	}
	return lps
}

// ruleSaturation applies the design article's default rule to the points
// in load order. Only a load (concurrency, rate) can saturate a server: a
// token-length sweep holds the load fixed, and one point has no trend.
func (c *Capacity) ruleSaturation(lps []metrics.LoadPoint) *SaturationResult {
	if c.Note != "" || len(lps) < 2 || (c.Param != metrics.ParamConcurrency && c.Param != metrics.ParamRate) {
		return nil
	}
	i, reason, ok := metrics.DefaultSaturationRule().Check(lps, c.Param)
	return &SaturationResult{Saturated: ok, Point: c.Order[i], Reason: reason, Source: SaturationByRule}
}

// LoadParam is the parameter an experiment's capacity is measured along:
// the one its adaptive sweep grows or its one-parameter grid varies, else
// the first of concurrency, rate, input_tokens and output_tokens whose
// value differs between points, else the load of its single point.
func LoadParam(res *ExperimentResult) string {
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
	names := append([]string{metrics.ParamConcurrency, metrics.ParamRate}, metrics.TokenParams...)
	for _, name := range names {
		if varies(res.Points, name) {
			return name
		}
	}
	if len(res.Points) > 0 {
		for _, name := range names {
			if _, ok := res.Points[0].Params[name]; ok {
				return name
			}
		}
	}
	return metrics.ParamConcurrency
}

func varies(points []PointResult, name string) bool {
	seen := map[float64]bool{}
	for _, p := range points {
		if v, ok := p.Params[name]; ok {
			seen[v] = true
		}
	}
	return len(seen) > 1
}

// firstLatencyGate is the experiment's first latency gate (Metric.Latency:
// a knee is where latency stops meeting its SLO) that applies at every
// point (no @), not a baseline gate.
func firstLatencyGate(e *plan.Experiment) (metrics.Gate, bool) {
	if e == nil {
		return metrics.Gate{}, false
	}
	for _, g := range e.Gates {
		if len(g.At) == 0 && g.Component == "" && g.Replica == nil && g.Stage == "" && !g.Baseline && g.Metric.Latency {
			return g, true
		}
	}
	return metrics.Gate{}, false
}

// kneeGates are the gates a knee is reported for: every gate of the
// experiment but baseline gates (which need the baseline's value), once
// each.
func kneeGates(e *plan.Experiment) []metrics.Gate {
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

// AllFailed reports whether every measured request of every point failed
// (and at least one was sent): then the run could not be carried out
// (exit 3), with the most common error as the reason. A point where all
// fail among points that succeed is data that gates judge.
func AllFailed(results []ExperimentResult) (metrics.ErrorCount, bool) {
	var common metrics.ErrorCount
	failed := 0
	for i := range results {
		for _, p := range results[i].Points {
			for _, out := range p.Repeats {
				s := &out.Summary
				if s.Completed > 0 {
					return metrics.ErrorCount{}, false
				}
				failed += s.Failed
				for _, e := range s.Errors {
					if e.Count > common.Count {
						common = e
					}
				}
			}
		}
	}
	return common, failed > 0
}
