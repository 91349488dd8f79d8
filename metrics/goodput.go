package metrics

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// GoodputMetric is a per-request metric a goodput SLO can bound, named as
// GenAI-Perf's --goodput names it so the name round-trips into its
// input_config.
type GoodputMetric string

// The metrics GenAI-Perf accepts in --goodput for LLM endpoints. Time
// metrics are bounded in ms from above; the throughput from below, in
// tokens/s.
const (
	GoodputTTFT           GoodputMetric = "time_to_first_token"
	GoodputTTST           GoodputMetric = "time_to_second_token"
	GoodputITL            GoodputMetric = "inter_token_latency"
	GoodputRequestLatency GoodputMetric = "request_latency"
	GoodputTPSUser        GoodputMetric = "output_token_throughput_per_user"
)

// goodputMetrics are the metrics an SLO can bound. A name is resolved
// through the catalogue, so llmbench's short gate names work too (ttft,
// ttst, itl). Older GenAI-Perf releases' output_token_throughput_per_request
// is deliberately absent: it was OSL/latency, a different quantity from
// 1/ITL.
var goodputMetrics = []GoodputMetric{GoodputTTFT, GoodputTTST, GoodputITL, GoodputRequestLatency, GoodputTPSUser}

// SLO is one goodput constraint: a request is good when it meets all of
// them.
type SLO struct {
	Metric GoodputMetric
	// Value is in ms for time metrics and tokens/s for the throughput, the
	// units GenAI-Perf's --goodput takes.
	Value float64
}

// ParseGoodputMetric resolves a metric name or alias (ttft, ttst, itl).
func ParseGoodputMetric(name string) (GoodputMetric, error) {
	if m, ok := Lookup(strings.TrimSpace(name)); ok && slices.Contains(goodputMetrics, GoodputMetric(m.GenAIPerfName())) {
		return GoodputMetric(m.GenAIPerfName()), nil
	}
	return "", fmt.Errorf("unknown goodput metric %q: want one of %s, %s, %s, %s, %s (or ttft, ttst, itl)",
		name, GoodputTTFT, GoodputTTST, GoodputITL, GoodputRequestLatency, GoodputTPSUser)
}

// ParseGoodput parses one GenAI-Perf --goodput constraint, "name:value",
// such as "time_to_first_token:500" or "ttft:500" (ms). Where GenAI-Perf
// silently reports a goodput of -1 for a bad constraint, this is an error
// the user sees before any traffic is sent.
func ParseGoodput(spec string) (SLO, error) {
	name, value, ok := strings.Cut(spec, ":")
	if !ok {
		return SLO{}, fmt.Errorf("goodput constraint %q: want name:value, such as ttft:500", spec)
	}
	m, err := ParseGoodputMetric(name)
	if err != nil {
		return SLO{}, fmt.Errorf("goodput constraint %q: %w", spec, err)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return SLO{}, fmt.Errorf("goodput constraint %q: value %q is not a non-negative number", spec, value)
	}
	return SLO{Metric: m, Value: v}, nil
}

// Met reports whether a request meets the SLO. It is decided per request,
// from that request's own values; GenAI-Perf instead zips the per-metric
// lists, which are shorter than the request list for TTST, ITL and the
// per-user throughput, and so checks one request's TTFT against another's
// ITL. A request without a value for the metric does not meet the SLO. As
// in GenAI-Perf a time fails only when strictly above its bound (compared
// in ns, bound×1e6) and a throughput only when strictly below: the
// metric's value, unit and direction are its catalogue entry's. An SLO
// whose Metric is none of the Goodput constants is never met.
func (s SLO) Met(m *RequestMetrics) bool {
	metric, ok := Lookup(string(s.Metric))
	if !ok || !m.HasContent || !slices.Contains(goodputMetrics, s.Metric) {
		return false
	}
	v := metric.request(nil, *m)
	if len(v) != 1 {
		return false
	}
	_, fromDisplay := metric.q.displayConversions()
	if metric.Direction == HigherIsBetter {
		return v[0] >= fromDisplay(s.Value)
	}
	return v[0] <= fromDisplay(s.Value)
}

// meetsAll reports whether a request meets every SLO.
func meetsAll(slos []SLO, m *RequestMetrics) bool {
	for _, s := range slos {
		if !s.Met(m) {
			return false
		}
	}
	return true
}
