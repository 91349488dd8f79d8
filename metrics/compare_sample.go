package metrics

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// RunData is one run (one repeat of a point) as a comparison reads it: its
// summary, and its requests as records (a stored run) or as a Series (a
// run being measured, which keeps no records).
type RunData struct {
	Summary *Summary
	Records []Record
	// Series, when set, is read instead of Records.
	Series *Series
	// Telemetry is the run's telemetry, what telemetry metrics
	// (gpu_power, energy_per_token, ...) are compared on; nil without.
	Telemetry *TelemetrySummary
	// CostPerHour is the run's price (cost_per_hour=), what cost_per_mtok
	// is computed from with the summary's output throughput; 0 without.
	CostPerHour float64
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
		v, err := g.MeasureRun(r)
		if err != nil {
			return Sample{}, err // it names the metric already
		}
		s.Repeats = append(s.Repeats, v)
	}
	if !HasSeries(m.name) {
		return s, nil // repeats only
	}
	series := runs[0].Series
	if series == nil {
		if series, err = SeriesOf(m.name, runs[0].Records); err != nil {
			return Sample{}, err
		}
	}
	if s.Values, err = series.values(m.name); err != nil && len(runs) < 2 {
		return Sample{}, fmt.Errorf("%s: %w", metric, err) // with repeats the values may go unused
	}
	return s, nil
}

// MeasureRun is g's statistic in one run: cost_per_mtok from its price
// and its summary's output throughput, a telemetry metric from its
// telemetry (both compared on repeats: neither has per-request values),
// anything else from its summary.
func (g Gate) MeasureRun(r RunData) (float64, error) {
	switch {
	case g.Metric == "cost_per_mtok":
		var throughput float64
		if r.Summary != nil {
			throughput = r.Summary.OutputTokenThroughput
		}
		v, ok := CostPerMillionTokens(r.CostPerHour, throughput)
		if !ok && r.CostPerHour <= 0 {
			return math.NaN(), fmt.Errorf("%s: %w: no price was given (cost_per_hour=)", g.name(), ErrNotMeasured)
		}
		if !ok {
			return math.NaN(), fmt.Errorf("%s: %w (no output tokens)", g.name(), ErrNotMeasured)
		}
		return v, nil
	case g.MeasuredFromTelemetry():
		return g.MeasureTelemetry(r.Telemetry)
	}
	return g.Measure(r.Summary)
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
	metric, _, _ = strings.Cut(metric, "@")
	base, _, _ := strings.Cut(metric, ".")
	m := lookupGateMetric(base)
	if m == nil {
		return native, ""
	}
	toDisplay, _ := m.q.displayConversions()
	return toDisplay(native), m.unit
}
