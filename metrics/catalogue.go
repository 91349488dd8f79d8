package metrics

import "strings"

// Metric is everything llmbench knows about one thing it measures, in
// one place: its names, what it measures and in which units it is held,
// written and shown, which way is better, and how to read it from a run's
// Summary, its requests or its telemetry. Gates hold a *Metric; compare,
// check(), summary.json, the views and the HTML report walk Catalogue(),
// so adding a metric is one entry in catalogue_entries.go plus its
// computation, and a report cannot name a metric the catalogue lacks
// (TestReportsNameOnlyCatalogueMetrics).
//
// Values are held in the native unit (ns for times, a ratio from 0 to 1
// for ratios, per second for throughputs). Two other units exist, each
// the same for every metric of a quantity:
//
//   - report units, what every report prints (ms, %): Display, Scale;
//   - scenario units, what a bare number in a gate and a value read in
//     check() are in (ms, a ratio): ScenarioScale.
type Metric struct {
	// Name is the SPEC §2 short name gates and reports use: ttft, itl,
	// error_rate...
	Name string
	// Aliases are other names a gate or --metrics may use: GenAI-Perf's
	// long names (time_to_first_token is ttft). The first is GenAI-Perf's
	// key for the metric, where it has one.
	Aliases []string
	// Kind says what the metric is a statistic of.
	Kind Kind
	// Unit labels a value in report units ("ms", "%", "tokens/s").
	Unit string
	// Direction is which way the metric gets better, what a comparison
	// judges a change by; 0 for a metric of no direction (isl, gpu_power),
	// which can be shown but not judged.
	Direction Direction
	// Need is what the run must do for the metric to be measured at all.
	Need Need
	// PerGPU marks a GPU metric that can also be judged GPU by GPU
	// (gpu_power.per_gpu.max): see Gate.PerGPU.
	PerGPU bool
	// Latency marks the times a user waits for the server's answer: a
	// gate on one defines a sweep's knee.
	Latency bool

	q quantity
	// sampled marks a telemetry metric that is a series of samples, which
	// takes a statistic like a per-request distribution.
	sampled bool
	// reportOnly marks a value reports show that no gate bounds (the
	// request counts, the duration): ParseGate does not know it.
	reportOnly bool
	// summaryJSON marks a key of summary.json's metrics block
	// (docs/summary-json.md), written in catalogue order.
	summaryJSON bool
	// onlyWhenMeasured: summary.json lists the metric only for a point
	// that measured it (the media metrics), so a text-only run's file is
	// as it was before multimodal runs existed.
	onlyWhenMeasured bool
	// unmeasuredWhenEmpty: a run with no requests has no value (an error
	// rate over no requests is no evidence that errors are rare), though
	// its Summary holds a 0.
	unmeasuredWhenEmpty bool
	// whole, for a ratio whose 100% is a failure of everything, says what
	// it is ("every request fails"): a gate that only that can fail
	// (error_rate < 100%) guards nothing, see checkRatio.
	whole string

	// distribution or value reads the metric from a Summary; both nil for
	// a metric no Summary holds (telemetry, cost).
	distribution func(*Summary) *Distribution
	value        func(*Summary) (float64, bool)
	// request reads a distribution metric's values from one completed
	// request, none when the request has no such value (an ITL needs two
	// chunks): what a Series keeps to compare runs request by request.
	request func(*Record, RequestMetrics) []float64
	// wholeRun computes a run-level metric's values from a series' rows
	// alone, in send order (1 or 0 per request for error_rate, per-window
	// rates for the throughputs).
	wholeRun func(rows []seriesRow) []float64
	// telemetry reads the metric from a point's TelemetrySummary.
	telemetry func(g Gate, t *TelemetrySummary) (float64, error)
	// run reads the metric from a whole run when neither its Summary nor
	// its telemetry alone holds it (cost_per_mtok needs the price).
	run func(g Gate, r RunData) (float64, error)
}

// Kind is what a metric is a statistic of.
type Kind int

// The kinds of metrics.
const (
	// PerRequest is a distribution over a run's requests (or their chunks:
	// chunk_gap); it takes a statistic, avg when none is written.
	PerRequest Kind = iota + 1
	// PerRun is one value per run (a throughput, the error rate), which
	// GenAI-Perf reports avg-only.
	PerRun
	// Telemetry is read from scraped Prometheus endpoints: a series of
	// samples (gpu_power), or one value over the point (energy_per_token).
	Telemetry
)

// Need is a property of the run without which a metric is never
// measured, so a scenario that lacks it can be refused before it runs.
type Need string

// The needs of metrics.
const (
	NeedNothing Need = ""
	// NeedStreaming: token timings exist only in a streamed response.
	NeedStreaming Need = "a streaming endpoint (stream=True)"
	// NeedGoodput: goodput counts requests meeting the goodput SLOs.
	NeedGoodput Need = "goodput SLOs (goodput={...})"
	// NeedOpenLoop: schedule lag, and the latencies from the schedule, are
	// measured from a planned send time.
	NeedOpenLoop Need = "an open-loop load (rate() or replay())"
	// NeedTelemetry: GPU, energy and inference-server metrics come from
	// scraped Prometheus endpoints (a DCGM exporter, the server's
	// /metrics). It is met when the experiment scrapes any (telemetry=[...]
	// or --server-metrics-urls); such a gate is then measured with
	// Gate.MeasureTelemetry from the point's TelemetrySummary, and is
	// unmeasured, so failed, if the endpoints did not export its metric.
	NeedTelemetry Need = "telemetry (telemetry=[...] or --server-metrics-urls)"
	// NeedCost: cost per token is the deployment's price over its output.
	NeedCost Need = "the deployment's price (cost_per_hour=)"
)

// Catalogue is every metric, in the order reports list them (summary.json's
// metrics block, "want one of" messages). The slice is a copy; the
// metrics are shared and must not be changed.
func Catalogue() []*Metric { return append([]*Metric(nil), catalogue...) }

// Lookup resolves a metric's name or alias (a GenAI-Perf long name).
func Lookup(name string) (*Metric, bool) {
	for _, m := range catalogue {
		if m.Name == name {
			return m, true
		}
	}
	for _, m := range catalogue {
		for _, a := range m.Aliases {
			if a == name {
				return m, true
			}
		}
	}
	return nil, false
}

// lookupGated resolves the name of a metric a gate can bound; nil for an
// unknown name or a report-only value.
func lookupGated(name string) *Metric {
	if m, ok := Lookup(name); ok && !m.reportOnly {
		return m
	}
	return nil
}

// gatedList lists the gate metrics' names for "want one of" messages.
func gatedList() string {
	var names []string
	for _, m := range catalogue {
		if !m.reportOnly {
			names = append(names, m.Name)
		}
	}
	return orList(names)
}

// String is the metric's name, so a Gate prints readably.
func (m *Metric) String() string {
	if m == nil {
		return ""
	}
	return m.Name
}

// GenAIPerfName is GenAI-Perf's key for the metric
// (time_to_first_token), its name where GenAI-Perf uses the short one.
func (m *Metric) GenAIPerfName() string {
	if len(m.Aliases) > 0 {
		return m.Aliases[0]
	}
	return m.Name
}

// Stats reports whether the metric is a distribution, which takes a
// statistic (avg, p99...): per-request metrics and sampled telemetry.
func (m *Metric) Stats() bool { return m.Kind == PerRequest || m.sampled }

// Distribution reads a distribution metric from a Summary; nil when the
// run did not measure it or the metric is not held as a distribution.
func (m *Metric) Distribution(s *Summary) *Distribution {
	if s == nil || m.distribution == nil {
		return nil
	}
	return m.distribution(s)
}

// Value reads a run-level metric from a Summary, as the Summary holds it
// (an empty run's error rate is 0); ok is false when the Summary holds no
// value (no goodput SLOs) or the metric is not a Summary value.
func (m *Metric) Value(s *Summary) (v float64, ok bool) {
	if s == nil || m.value == nil {
		return 0, false
	}
	return m.value(s)
}

// HasSeries reports whether the metric has values a single run can be
// compared on, request by request or window by window; one without
// (request_goodput, energy, cost) is compared on repeats only, two or more
// on each side.
func (m *Metric) HasSeries() bool { return m.request != nil || m.wholeRun != nil }

// InSummaryJSON reports whether the metric is a key of summary.json's
// metrics block.
func (m *Metric) InSummaryJSON() bool { return m.summaryJSON }

// OnlyWhenMeasured reports whether summary.json leaves the metric out of
// a point that did not measure it, instead of writing null.
func (m *Metric) OnlyWhenMeasured() bool { return m.onlyWhenMeasured }

// ReportOnly reports whether the metric is a value reports show but no
// gate bounds (request_count, duration...).
func (m *Metric) ReportOnly() bool { return m.reportOnly }

// Display converts a native value to report units (ms for times, % for
// ratios), exactly as the gate messages print it: times are divided by
// 1e6, the nearest value to the true quotient.
func (m *Metric) Display(native float64) float64 {
	toDisplay, _ := m.q.displayConversions()
	return toDisplay(native)
}

// Scale is the factor from the native unit to report units (1e-6 for
// times, 100 for ratios), for reports that scale statistic by statistic
// as GenAI-Perf's scale_data does (Distribution.Scaled): multiplying by
// 1e-6 reproduces its floating-point results bit for bit.
func (m *Metric) Scale() float64 {
	switch m.q {
	case quantityTime:
		return 1e-6
	case quantityRatio:
		return 100
	}
	return 1
}

// ScenarioScale is the factor from the native unit to scenario units:
// what a bare number in a gate is read in and what check() reads, the
// same for both — ms for times (1e-6), and native otherwise, so ratios
// are from 0 to 1 ("error_rate < 0.01" and p.error_rate < 0.01 mean the
// same; a gate may write 1% instead).
func (m *Metric) ScenarioScale() float64 {
	if m.q == quantityTime {
		return 1e-6
	}
	return 1
}

// WholeNumber reports whether the metric counts requests one by one
// (request_count, completed, failed), which check() reads as an int.
func (m *Metric) WholeNumber() bool { return m.q == quantityTally }

// orList joins words as "a, b or c".
func orList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
