package sweep

import (
	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/telemetry"
	"github.com/llmbench/llmbench/reports/views"
	"github.com/llmbench/llmbench/runtime"
)

type pointJSON struct {
	Index  int                `json:"index"`
	Label  string             `json:"label"`
	Params map[string]float64 `json:"params"`
	// Partial marks a point cut short by an interrupt.
	Partial       bool         `json:"partial"`
	TokenCounting string       `json:"token_counting"`
	Requests      requestsJSON `json:"requests"`
	Errors        []errorJSON  `json:"errors"`
	Metrics       *metricsJSON `json:"metrics"`
	Gates         []gateJSON   `json:"gates"`
	Repeats       *repeatsJSON `json:"repeats,omitempty"`
	// Telemetry is what the point's scrapes came to (energy, J/token,
	// cost, the server's view), absent when nothing was scraped.
	Telemetry *telemetry.Block `json:"telemetry,omitempty"`
	// Client says whether the client itself limited the load, and why.
	Client *metrics.ClientVerdict `json:"client,omitempty"`
	// SteadyState is what an auto point's steady-state rule did: the
	// requests it needed, the widths reached, converged or not, the
	// warm-up dropped; absent for a fixed stop.
	SteadyState *runtime.SteadyOutcome `json:"steady_state,omitempty"`
	// Sessions is a conversation point's per-session and per-turn view.
	Sessions *sessionsJSON `json:"sessions,omitempty"`
	// Shards is a merged point's shards, their shares and start skew.
	Shards *shardsJSON `json:"shards,omitempty"`
	// Replicas is each replica's share of a point whose endpoint spread
	// its requests over several URLs, in URL order; absent for one URL.
	Replicas []replicaJSON `json:"replicas,omitempty"`
	// Stages is each stage's share of a stages() point (the requests
	// sent during it), in order; absent for any other load.
	Stages []stageJSON `json:"stages,omitempty"`
	// Views is the point under every tool's definitions (GenAI-Perf's,
	// vLLM's, GuideLLM's, LLMPerf's, AIPerf's), null when it measured
	// nothing.
	Views *views.Object `json:"views"`
	// PrefixCache is the share of prompt tokens the server said it served
	// from its prefix cache, absent when it reported no cached tokens.
	PrefixCache *prefixCacheJSON `json:"prefix_cache,omitempty"`
}

type requestsJSON struct {
	Completed int     `json:"completed"`
	Failed    int     `json:"failed"`
	ErrorRate float64 `json:"error_rate"`
	// Retried are requests sent again on a fresh connection because they
	// never reached the server (stale keep-alive), absent when none was.
	Retried int `json:"retried,omitempty"`
	// Warmup are measured requests an auto point's warm-up rule dropped
	// from every metric, absent when none was.
	Warmup int `json:"warmup,omitempty"`
}

type errorJSON struct {
	Class   string `json:"class"`
	Status  int    `json:"status,omitempty"`
	Message string `json:"message"`
	Count   int    `json:"count"`
}

// metricsJSON is a point's metrics block: the catalogue's summary.json
// metrics (Metric.InSummaryJSON), in catalogue order and report units; a
// distribution the point did not measure, or a value its summary does not
// hold (request_goodput without SLOs), is null.
type metricsJSON struct{ s *metrics.Summary }

// MarshalJSON writes the block by walking the catalogue.
func (mj metricsJSON) MarshalJSON() ([]byte, error) {
	o := &views.Object{}
	for _, m := range metrics.Catalogue() {
		if !m.InSummaryJSON() {
			continue
		}
		if m.Kind == metrics.PerRequest {
			d := m.Distribution(mj.s)
			if d == nil && m.OnlyWhenMeasured() {
				continue
			}
			o.Set(m.Name, distIn(m, d))
			continue
		}
		var v any
		if x, ok := m.Value(mj.s); ok {
			v = x * m.Scale()
		}
		o.Set(m.Name, v)
	}
	return o.MarshalJSON()
}

type distJSON struct {
	Count int     `json:"count"`
	Avg   float64 `json:"avg"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Std   float64 `json:"std"`
	P1    float64 `json:"p1"`
	P5    float64 `json:"p5"`
	P10   float64 `json:"p10"`
	P25   float64 `json:"p25"`
	P50   float64 `json:"p50"`
	P75   float64 `json:"p75"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
}

type gateJSON struct {
	Gate   string `json:"gate"`
	Passed bool   `json:"passed"`
	// Measured is in report units; null when the metric was not measured.
	Measured *float64 `json:"measured"`
	Message  string   `json:"message"`
}

type repeatsJSON struct {
	N        int                       `json:"n"`
	Disagree bool                      `json:"disagree"`
	Metrics  map[string]repeatStatJSON `json:"metrics"`
}

type repeatStatJSON struct {
	N        int      `json:"n"`
	Mean     *float64 `json:"mean"`
	Stddev   *float64 `json:"stddev"`
	CILow    *float64 `json:"ci95_low"`
	CIHigh   *float64 `json:"ci95_high"`
	Spread   *float64 `json:"spread"`
	Disagree bool     `json:"disagree"`
}

func pointOf(i int, p *runtime.PointResult) pointJSON {
	pj := pointJSON{Index: i, Label: p.Params.Label(), Params: p.Params, Partial: partial(p),
		Errors: []errorJSON{}, Gates: []gateJSON{}}
	if pj.Params == nil {
		pj.Params = map[string]float64{}
	}
	if p.Outcome != nil {
		s := &p.Outcome.Summary
		pj.Telemetry = telemetry.BlockOf(p.Outcome.Telemetry, s)
		pj.Client = s.Client
		pj.TokenCounting = p.Outcome.Counting.String()
		pj.Requests = requestsJSON{Completed: s.Completed, Failed: s.Failed, ErrorRate: s.ErrorRate * metrics.ErrorRate.Scale(), Retried: s.Retried, Warmup: s.Warmup}
		pj.SteadyState = p.Outcome.Steady
		for _, e := range s.Errors {
			pj.Errors = append(pj.Errors, errorJSON{Class: string(e.Class), Status: e.Status, Message: e.Message, Count: e.Count})
		}
		pj.Metrics = metricsOf(s)
		pj.Sessions = sessionsOf(s.Sessions)
		pj.Shards = shardsOf(p.Outcome.Shards)
		pj.Replicas = replicasOf(p.Outcome.Replicas)
		pj.Stages = stagesOf(p.Outcome.Stages)
		pj.Views = views.Block(s)
		pj.PrefixCache = prefixCacheOf(p)
	}
	for _, g := range p.Gates {
		gj := gateJSON{Gate: g.Gate.Source, Passed: g.Passed}
		if g.Err != nil {
			gj.Message = g.Err.Error()
		} else {
			gj.Measured, gj.Message = num(g.Measured*g.Gate.Metric.Scale()), g.Gate.Describe(g.Measured)
		}
		pj.Gates = append(pj.Gates, gj)
	}
	pj.Repeats = repeatsOf(p)
	return pj
}

// replicaJSON is one replica's requests and headline metrics, reduced
// from its own records with the point's definitions.
type replicaJSON struct {
	Index    int          `json:"index"`
	URL      string       `json:"url"`
	Requests requestsJSON `json:"requests"`
	Metrics  *metricsJSON `json:"metrics"`
}

func replicasOf(reps []runtime.ReplicaSummary) []replicaJSON {
	var out []replicaJSON
	for _, r := range reps {
		s := &r.Summary
		out = append(out, replicaJSON{Index: r.Index, URL: r.URL, Metrics: metricsOf(s),
			Requests: requestsJSON{Completed: s.Completed, Failed: s.Failed, ErrorRate: s.ErrorRate * metrics.ErrorRate.Scale(), Retried: s.Retried}})
	}
	return out
}

func metricsOf(s *metrics.Summary) *metricsJSON { return &metricsJSON{s} }

// distIn is a distribution of m in report units, scaled statistic by
// statistic as GenAI-Perf scales (Metric.Scale).
func distIn(m *metrics.Metric, d *metrics.Distribution) *distJSON { return dist(d.Scaled(m.Scale())) }

func dist(d *metrics.Distribution) *distJSON {
	if d == nil {
		return nil
	}
	return &distJSON{Count: d.Count, Avg: d.Avg, Min: d.Min, Max: d.Max, Std: d.Std,
		P1: d.P1, P5: d.P5, P10: d.P10, P25: d.P25, P50: d.P50, P75: d.P75, P90: d.P90, P95: d.P95, P99: d.P99}
}

// repeatsOf reports the spread of each headline metric over a repeated
// point; nil for a point run once.
func repeatsOf(p *runtime.PointResult) *repeatsJSON {
	if len(p.RepeatStats) == 0 {
		return nil
	}
	rj := &repeatsJSON{N: len(p.Repeats), Metrics: map[string]repeatStatJSON{}}
	for name, st := range p.RepeatStats {
		scale := 1.0
		if m := metrics.HeadlineMetric(name); m != nil {
			scale = m.Scale()
		}
		rj.Metrics[name] = repeatStatJSON{
			N: st.N, Mean: num(st.Mean * scale), Stddev: num(st.Stddev * scale),
			CILow: num(st.CILow * scale), CIHigh: num(st.CIHigh * scale),
			Spread: num(100 * st.Spread), Disagree: st.Disagree,
		}
		rj.Disagree = rj.Disagree || st.Disagree
	}
	return rj
}
