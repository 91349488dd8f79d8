package html

import (
	"fmt"
	"strings"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/telemetry"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// absent is what a cell shows for a metric that was not measured, as
// GenAI-Perf prints N/A rather than a misleading zero.
const absent = "–"

// newMetricRow formats a summary's headline metrics in report units,
// each read through its catalogue entry.
func newMetricRow(name string, s *metrics.Summary) metricRow {
	errorRate, _ := metrics.ErrorRate.Value(s)
	return metricRow{Name: name, Requests: fmt.Sprint(s.Completed + s.Failed),
		TTFTP50: percentileCell(metrics.TTFT, s, 50), TTFTP99: percentileCell(metrics.TTFT, s, 99),
		ITLP50: percentileCell(metrics.ITL, s, 50), ITLP99: percentileCell(metrics.ITL, s, 99),
		LatencyP99: percentileCell(metrics.RequestLatency, s, 99),
		OutputTok:  valueCell(metrics.OutputTokenThroughput, s),
		ReqPerSec:  valueCell(metrics.RequestThroughput, s),
		Goodput:    valueCell(metrics.RequestGoodput, s), Gates: absent,
		Errors: fmt.Sprintf("%d (%.2f%%)", s.Failed, metrics.ErrorRate.Display(errorRate))}
}

// percentileCell is a distribution metric's p50 or p99 (p) in report
// units, absent when the run measured no value of it.
func percentileCell(m *metrics.Metric, s *metrics.Summary, p int) string {
	return distCell(m, m.Distribution(s), p)
}

// distCell is the p50 or p99 (p) of d, a distribution of m's values held
// elsewhere than in a Summary (a turn's, a session's), in m's report
// units; absent when d has no value.
func distCell(m *metrics.Metric, d *metrics.Distribution, p int) string {
	if d == nil || d.Count == 0 {
		return absent
	}
	v := d.P50
	if p == 99 {
		v = d.P99
	}
	return fmt.Sprintf("%.2f", m.Display(v))
}

// valueCell is a run-level metric in report units, absent when the run
// has no value of it (goodput without SLOs).
func valueCell(m *metrics.Metric, s *metrics.Summary) string {
	v, ok := m.Value(s)
	if !ok {
		return absent
	}
	return fmt.Sprintf("%.2f", m.Display(v))
}

// newComponentView summarizes each dataset component of a point on its
// own, so a mix whose long prompts are slow is not hidden by the average.
// It reports false unless the point mixed at least two components.
func newComponentView(pt *runtime.PointResult) (componentView, bool) {
	if len(pt.Outcome.Components) < 2 {
		return componentView{}, false
	}
	cv := componentView{Point: pt.Params.Label()}
	for _, c := range pt.Outcome.Components {
		cv.Rows = append(cv.Rows, newMetricRow(c.Name, &c.Summary))
	}
	return cv, true
}

// modelWords names the model, or every model and how requests were
// spread over them.
func modelWords(e plan.Endpoint) string {
	if len(e.Models) < 2 {
		return e.Model
	}
	selection := e.ModelSelection
	if selection == "" {
		selection = plan.RoundRobin
	}
	return strings.Join(e.Models, ", ") + " (" + selection + ")"
}

// experimentConfig lists an experiment's settings as the scenario gave
// them. Headers are left out on purpose: they carry API keys.
func experimentConfig(e *plan.Experiment) []KV {
	if e == nil {
		return nil
	}
	kv := []KV{{"endpoint", plan.RedactURL(e.Endpoint.URL) + plan.RedactURL(e.Endpoint.Path)}, {"model", modelWords(e.Endpoint)},
		{"api", fmt.Sprint(e.Endpoint.API)}, {"stream", fmt.Sprint(e.Endpoint.Stream)},
		{"traffic", e.Load.String()}}
	if e.Requests > 0 {
		kv = append(kv, KV{"requests", fmt.Sprint(e.Requests)})
	}
	if e.Duration > 0 {
		kv = append(kv, KV{"duration", e.Duration.Round(time.Millisecond).String()})
	}
	kv = append(kv, KV{"warmup", fmt.Sprint(e.Warmup)}, KV{"repeats", fmt.Sprint(max(e.Repeats, 1))},
		KV{"seed", fmt.Sprint(e.Seed)})
	if s := sweepWords(e.Sweep); s != "" {
		kv = append(kv, KV{"sweep", s})
	}
	if len(e.Telemetry) > 0 {
		urls := make([]string, len(e.Telemetry))
		for i, u := range e.Telemetry {
			urls[i] = plan.RedactURL(u)
		}
		kv = append(kv, KV{"telemetry", strings.Join(urls, ", ")})
	}
	if e.CostPerHour > 0 {
		kv = append(kv, KV{"price", fmt.Sprintf("%g %s per hour", e.CostPerHour, currencyOf(e))})
	}
	if len(e.Gates) > 0 {
		src := make([]string, len(e.Gates))
		for i, g := range e.Gates {
			src[i] = g.Source
		}
		kv = append(kv, KV{"gates", strings.Join(src, "; ")})
	}
	return nonEmpty(kv)
}

// nonEmpty drops settings left unset, which would read as blank rows.
func nonEmpty(kv []KV) []KV {
	out := kv[:0]
	for _, e := range kv {
		if e.Value != "" {
			out = append(out, e)
		}
	}
	return out
}

func sweepWords(s *plan.Sweep) string {
	switch {
	case s == nil:
		return ""
	case s.Saturation != nil:
		return fmt.Sprintf("until saturation over %s from %g ×%g up to %g", s.Saturation.Over,
			s.Saturation.Start, s.Saturation.Factor, s.Saturation.Limit)
	case s.Search != nil:
		return fmt.Sprintf("search %s over %s in [%g, %g]", s.Search.Gate.Source, s.Search.Over,
			s.Search.Lo, s.Search.Hi)
	}
	parts := make([]string, len(s.Params))
	for i, p := range s.Params {
		parts[i] = fmt.Sprintf("%s=%v", p.Name, p.Values)
	}
	return "grid " + strings.Join(parts, " × ")
}

// currencyOf is the experiment's currency as its telemetry reports it.
func currencyOf(e *plan.Experiment) string {
	return telemetry.Currency(&metrics.TelemetrySummary{Window: metrics.TelemetryWindow{Currency: e.Currency}})
}
