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

// Sample is one side of the comparison of g's statistic: each run's value
// of it (Repeats) and the first run's per-request values in send order
// (Values, what the judge bounds when each side has one run). Values are what the run's statistics are computed from:
// completed requests' TTFT, ITL, latency...; 1 or 0 per request, failed or
// not, for error_rate; per-window rates for the whole-run throughputs.
func (g Gate) Sample(runs []RunData) (Sample, error) {
	if len(runs) == 0 {
		return Sample{}, fmt.Errorf("%s: no runs to compare", g.Name())
	}
	var s Sample
	for _, r := range runs {
		v, err := g.MeasureRun(r)
		if err != nil {
			return Sample{}, err // it names the metric already
		}
		s.Repeats = append(s.Repeats, v)
	}
	if !g.Metric.HasSeries() {
		return s, nil // repeats only
	}
	series := runs[0].Series
	if series == nil {
		series = SeriesOf(g.Metric, runs[0].Records)
	}
	var err error
	if s.Values, err = series.values(g.Metric); err != nil && len(runs) < 2 {
		return Sample{}, fmt.Errorf("%s: %w", g.Name(), err) // with repeats the values may go unused
	}
	return s, nil
}

// MeasureRun is g's statistic in one run: cost_per_mtok from its price
// and its summary's output throughput, a telemetry metric from its
// telemetry (both compared on repeats: neither has per-request values),
// anything else from its summary.
func (g Gate) MeasureRun(r RunData) (float64, error) {
	switch {
	case g.Metric != nil && g.Metric.run != nil:
		return g.Metric.run(g, r)
	case g.MeasuredFromTelemetry():
		return g.MeasureTelemetry(r.Telemetry)
	}
	return g.Measure(r.Summary)
}

// costOfRun is cost_per_mtok in one run: its price over its summary's
// output throughput.
func (g Gate) costOfRun(r RunData) (float64, error) {
	var throughput float64
	if r.Summary != nil {
		throughput = r.Summary.OutputTokenThroughput
	}
	v, ok := CostPerMillionTokens(r.CostPerHour, throughput)
	if !ok && r.CostPerHour <= 0 {
		return g.notMeasured("no price was given (cost_per_hour=)")
	}
	if !ok {
		return math.NaN(), fmt.Errorf("%s: %w (no output tokens)", g.Name(), ErrNotMeasured)
	}
	return v, nil
}

// CostPerMillionTokens is the cost of a million output tokens at a price
// per hour and an output token throughput (SPEC §8):
// cost_per_hour / (output_token_throughput × 3600) × 1e6. ok is false
// without a price or without output.
func CostPerMillionTokens(costPerHour, outputTokensPerSecond float64) (v float64, ok bool) {
	if costPerHour <= 0 || outputTokensPerSecond <= 0 {
		return 0, false
	}
	return costPerHour / (outputTokensPerSecond * 3600) * 1e6, true
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
	m, err := namedMetric(metric)
	if err != nil {
		return native, ""
	}
	return m.Display(native), m.Unit
}
