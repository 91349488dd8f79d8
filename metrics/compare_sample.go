package metrics

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// RunData is one run (one repeat of a point) as a comparison reads it: its
// summary and its records.
type RunData struct {
	Summary *Summary
	Records []Record
}

// minWindow and windowsPerRun size the windows a whole-run rate is cut
// into (WindowRates): about 30 windows, none shorter than 100 ms.
const (
	minWindow     = int64(100 * time.Millisecond)
	windowsPerRun = 30
)

// SampleOf is one side of the comparison of metric (named as gates name
// it, "ttft.p99"): each run's value of the metric from its summary
// (Repeats, used when both sides have two or more) and the first run's
// per-request values in send order (Values, bootstrapped otherwise).
// Values are what the run's statistics are computed from: completed
// requests' TTFT, ITL, latency...; 1 or 0 per request, failed or not, for
// error_rate; per-window rates for the whole-run throughputs.
func SampleOf(metric string, runs []RunData) (Sample, error) {
	base, stat, _ := strings.Cut(metric, ".")
	m := lookupGateMetric(base)
	if m == nil {
		return Sample{}, fmt.Errorf("unknown metric %q, want %s", base, gateMetricList())
	}
	if len(runs) == 0 {
		return Sample{}, fmt.Errorf("%s: no runs to compare", metric)
	}
	norm, err := metricStatistic(metric)
	if err != nil {
		return Sample{}, err
	}
	g := Gate{Metric: m.name, Stat: stat}
	if stat != "" {
		g.Stat = norm
	}
	var s Sample
	for _, r := range runs {
		v, err := g.Measure(r.Summary)
		if err != nil {
			return Sample{}, fmt.Errorf("%s: %w", metric, err)
		}
		s.Repeats = append(s.Repeats, v)
	}
	if s.Values, err = perRequestValues(m.name, runs[0].Records); err != nil {
		return Sample{}, fmt.Errorf("%s: %w", metric, err)
	}
	return s, nil
}

// perRequestValues are the values metric's statistic is computed from, in
// send order.
func perRequestValues(metric string, recs []Record) ([]float64, error) {
	recs = slices.Clone(recs)
	slices.SortStableFunc(recs, func(a, b Record) int { return cmp.Compare(a.Sent, b.Sent) })
	switch metric {
	case "error_rate":
		return collect(recs, true, func(r *Record, _ RequestMetrics) []float64 { return []float64{indicator(r.Err != nil)} }), nil
	case "output_token_throughput":
		return windowRates(recs, func(r *Record) float64 { return float64(r.OutputTokens) }), nil
	case "request_throughput":
		return windowRates(recs, func(*Record) float64 { return 1 }), nil
	}
	pick, ok := requestValue[metric]
	if !ok {
		return nil, fmt.Errorf("no per-request values for %s", metric)
	}
	return collect(recs, false, pick), nil
}

// requestValue reads a distribution metric's values from one completed
// request, none when the request has no such value (an ITL needs two
// chunks).
var requestValue = map[string]func(*Record, RequestMetrics) []float64{
	"ttft":            func(_ *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(d.TTFT)) },
	"request_latency": func(_ *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(d.Latency)) },
	"ttst":            func(_ *Record, d RequestMetrics) []float64 { return some(d.HasTTST, float64(d.TTST)) },
	"itl":             func(_ *Record, d RequestMetrics) []float64 { return some(d.HasITL, float64(d.ITL)) },
	"ttfo":            func(_ *Record, d RequestMetrics) []float64 { return some(d.HasTTFO, float64(d.TTFO)) },
	"output_token_throughput_per_user": func(_ *Record, d RequestMetrics) []float64 {
		return some(d.HasTPSUser, d.TPSUser)
	},
	"isl": func(_ *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(d.ISL)) },
	"osl": func(_ *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(d.OSL)) },
	"schedule_lag": func(r *Record, _ RequestMetrics) []float64 {
		return some(r.Scheduled != 0, float64(r.Sent-r.Scheduled))
	},
	"chunk_gap": func(_ *Record, d RequestMetrics) []float64 {
		gaps := make([]float64, len(d.ChunkGaps))
		for i, g := range d.ChunkGaps {
			gaps[i] = float64(g)
		}
		return gaps
	},
}

// collect applies pick to each record in order: completed ones only,
// unless failed ones count too.
func collect(recs []Record, withFailed bool, pick func(*Record, RequestMetrics) []float64) []float64 {
	var out []float64
	for i := range recs {
		r := &recs[i]
		if r.Err != nil && !withFailed {
			continue
		}
		out = append(out, pick(r, Derive(r))...)
	}
	return out
}

// windowRates are a whole-run rate's per-window values: amount credited
// at each completed request's completion, the run from its first send to
// its last completion cut into windowsPerRun windows.
func windowRates(recs []Record, amount func(*Record) float64) []float64 {
	if len(recs) == 0 {
		return nil
	}
	var times []int64
	var amounts []float64
	start, end := recs[0].Sent, int64(0) // recs are in send order
	for i := range recs {
		r := &recs[i]
		end = max(end, r.Done)
		if r.Err == nil {
			times, amounts = append(times, r.Done), append(amounts, amount(r))
		}
	}
	width := max((end-start)/windowsPerRun, minWindow)
	return WindowRates(times, amounts, start, end, width)
}

func some(ok bool, v float64) []float64 {
	if !ok {
		return nil
	}
	return []float64{v}
}

func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// InReportUnits is a value of metric (named as gates name it) converted
// from its native unit to what reports print, with that unit: ms for
// times, % for error_rate, tokens/s for throughput.
func InReportUnits(metric string, native float64) (float64, string) {
	base, _, _ := strings.Cut(metric, ".")
	m := lookupGateMetric(base)
	if m == nil {
		return native, ""
	}
	toDisplay, _ := m.q.displayConversions()
	return toDisplay(native), m.unit
}
