package metrics

import (
	"math"
	"strconv"
)

// quantity is what a gate metric measures. It decides which units a gate
// value may be written in, the native unit it is stored in, and how reports
// show it.
type quantity int

const (
	// quantityTime is stored in ns and written in ms (also the unit of a
	// bare number, since every report shows ms), s, us, µs or ns.
	quantityTime quantity = iota
	// quantityTokens is a token count, written as a plain number.
	quantityTokens
	// quantityThroughput is a rate per second, written plain or with /s.
	quantityThroughput
	// quantityRatio is stored as a ratio from 0 to 1, written plain (a
	// ratio) or with % (a percentage).
	quantityRatio
	// quantityEnergy is joules per output token, written plain or with J.
	quantityEnergy
	// quantityPower is watts, written plain or with W.
	quantityPower
	// quantityCost is the cost per million output tokens, in the currency
	// of cost_per_hour, written as a plain number or with that currency's
	// code (Gate.Currency).
	quantityCost
	// quantityCount is a number of requests (a queue length), written as a
	// plain number.
	quantityCount
	// quantityFlag is a verdict as a number: 1 true, 0 false
	// ("client_limited == 0").
	quantityFlag
)

// unitConversion turns a number written in some unit into the native unit.
type unitConversion func(float64) float64

func scaleBy(f float64) unitConversion  { return func(v float64) float64 { return v * f } }
func divideBy(f float64) unitConversion { return func(v float64) float64 { return v / f } }
func sameUnit(v float64) float64        { return v }

// quantityUnits lists, per quantity, every unit a gate value may carry
// ("" for a bare number) with its conversion, and what to tell a user who
// wrote another one.
var quantityUnits = map[quantity]struct {
	units map[string]unitConversion
	want  string
}{
	quantityTime: {map[string]unitConversion{
		"": scaleBy(1e6), "ms": scaleBy(1e6), "s": scaleBy(1e9),
		"us": scaleBy(1e3), "µs": scaleBy(1e3), "μs": scaleBy(1e3), "ns": sameUnit,
	}, "ms, s, us or ns"},
	quantityTokens:     {map[string]unitConversion{"": sameUnit}, "a plain number of tokens"},
	quantityThroughput: {map[string]unitConversion{"": sameUnit, "/s": sameUnit}, "/s or no unit"},
	quantityRatio:      {map[string]unitConversion{"": sameUnit, "%": divideBy(100)}, "% or a plain ratio such as 0.01"},
	quantityEnergy:     {map[string]unitConversion{"": sameUnit, "J": sameUnit}, "J or no unit (joules per output token)"},
	quantityPower:      {map[string]unitConversion{"": sameUnit, "W": sameUnit}, "W or no unit"},
	quantityCost:       {map[string]unitConversion{"": sameUnit}, "a plain number or the currency of cost_per_hour, such as 2.5 USD (cost per million output tokens)"},
	quantityCount:      {map[string]unitConversion{"": sameUnit}, "a plain number of requests"},
	quantityFlag:       {map[string]unitConversion{"": sameUnit}, "0 or 1"},
}

// isKnownUnit reports whether u is a unit of some quantity, which tells
// "this unit does not apply to this metric" apart from "no such unit".
func isKnownUnit(u string) bool {
	if isCurrencyCode(u) {
		return true
	}
	for _, q := range quantityUnits {
		if _, ok := q.units[u]; ok {
			return true
		}
	}
	return false
}

// gateMetric is one metric a gate can bound: its SPEC §2 name, what it
// measures, whether it is a distribution (and so takes a statistic) and
// where a Summary holds it.
type gateMetric struct {
	name string
	q    quantity
	// perRequest marks a distribution (over requests, chunks or samples):
	// it takes a statistic, avg when none is written. The others are
	// run-level values, which GenAI-Perf reports avg-only.
	perRequest bool
	// unit is how reports label a value, after displayValue.
	unit string
	// distribution or value reads the metric from a Summary; both nil
	// means no Summary holds it yet (telemetry-derived metrics).
	distribution func(*Summary) *Distribution
	value        func(*Summary) (float64, bool)
	// needs is what the run must do for the metric to be measured at all.
	needs Need
	// perGPU marks a GPU metric that can also be judged GPU by GPU
	// (gpu_power.per_gpu.max): see Gate.PerGPU.
	perGPU bool
	// whole, for a ratio whose 100% is a failure of everything, says what
	// it is ("every request fails"): a gate that only that can fail
	// (error_rate < 100%) guards nothing, see checkRatio.
	whole string
}

// Need is a property of the run without which a gate's metric is never
// measured, so a scenario that lacks it can be refused before it runs.
type Need string

// The needs of gate metrics.
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

// Needs is what the run must do for g's metric to be measured.
func (g Gate) Needs() Need {
	if m := lookupGateMetric(g.Metric); m != nil {
		return m.needs
	}
	return NeedNothing
}

// gateMetrics is every gate metric, in the order error messages list them.
var gateMetrics = []*gateMetric{
	{name: "ttft", q: quantityTime, perRequest: true, unit: "ms",
		distribution: func(s *Summary) *Distribution { return s.TimeToFirstToken }, needs: NeedStreaming},
	{name: "ttst", q: quantityTime, perRequest: true, unit: "ms",
		distribution: func(s *Summary) *Distribution { return s.TimeToSecondToken }, needs: NeedStreaming},
	{name: "itl", q: quantityTime, perRequest: true, unit: "ms",
		distribution: func(s *Summary) *Distribution { return s.InterTokenLatency }, needs: NeedStreaming},
	{name: "request_latency", q: quantityTime, perRequest: true, unit: "ms",
		distribution: func(s *Summary) *Distribution { return s.RequestLatency }},
	{name: "ttfo", q: quantityTime, perRequest: true, unit: "ms",
		distribution: func(s *Summary) *Distribution { return s.TimeToFirstOutputToken }, needs: NeedStreaming},
	{name: "isl", q: quantityTokens, perRequest: true, unit: "tokens",
		distribution: func(s *Summary) *Distribution { return s.InputSequenceLength }},
	{name: "osl", q: quantityTokens, perRequest: true, unit: "tokens",
		distribution: func(s *Summary) *Distribution { return s.OutputSequenceLength }},
	{name: "output_token_throughput", q: quantityThroughput, unit: "tokens/s",
		value: func(s *Summary) (float64, bool) { return s.OutputTokenThroughput, true }},
	{name: "output_token_throughput_per_user", q: quantityThroughput, perRequest: true, unit: "tokens/s/user",
		distribution: func(s *Summary) *Distribution { return s.OutputTokenThroughputPerUser }, needs: NeedStreaming},
	{name: "request_throughput", q: quantityThroughput, unit: "requests/s",
		value: func(s *Summary) (float64, bool) { return s.RequestThroughput, true }},
	{name: "request_goodput", q: quantityThroughput, unit: "requests/s",
		value: func(s *Summary) (float64, bool) {
			if s.RequestGoodput == nil {
				return 0, false
			}
			return *s.RequestGoodput, true
		}, needs: NeedGoodput},
	// An error rate over no requests at all is no evidence that errors
	// are rare, so an empty run leaves it unmeasured.
	{name: "error_rate", q: quantityRatio, unit: "%", whole: "every request fails",
		value: func(s *Summary) (float64, bool) { return s.ErrorRate, s.Completed+s.Failed > 0 }},
	// cache_hit_share is unmeasured, so a gate on it fails, when the
	// server reports no cached-token counts.
	{name: "cache_hit_share", q: quantityRatio, unit: "%",
		value: func(s *Summary) (float64, bool) {
			if s.PrefixCache == nil {
				return 0, false
			}
			return s.PrefixCache.Share, true
		}},
	{name: "schedule_lag", q: quantityTime, perRequest: true, unit: "ms",
		distribution: func(s *Summary) *Distribution { return s.ScheduleLag }, needs: NeedOpenLoop},
	{name: "ttft_from_schedule", q: quantityTime, perRequest: true, unit: "ms",
		distribution: func(s *Summary) *Distribution { return s.TTFTFromSchedule }, needs: NeedOpenLoop},
	{name: "request_latency_from_schedule", q: quantityTime, perRequest: true, unit: "ms",
		distribution: func(s *Summary) *Distribution { return s.RequestLatencyFromSchedule }, needs: NeedOpenLoop},
	{name: "chunk_gap", q: quantityTime, perRequest: true, unit: "ms",
		distribution: func(s *Summary) *Distribution { return s.ChunkGap }, needs: NeedStreaming},
	{name: "energy_per_token", q: quantityEnergy, unit: "J/token", needs: NeedTelemetry},
	{name: "cost_per_mtok", q: quantityCost, unit: "per Mtok", needs: NeedCost},
	// GPU telemetry is a series of samples, which GenAI-Perf reports with
	// avg, min, max and percentiles; so are the server's gauges.
	{name: "gpu_power", q: quantityPower, perRequest: true, unit: "W", needs: NeedTelemetry, perGPU: true},
	{name: "gpu_utilization", q: quantityRatio, perRequest: true, unit: "%", needs: NeedTelemetry, perGPU: true},
	{name: "kv_cache_usage", q: quantityRatio, perRequest: true, unit: "%", needs: NeedTelemetry},
	{name: "num_requests_waiting", q: quantityCount, perRequest: true, unit: "requests", needs: NeedTelemetry},
	// client_limited is 1 when the client, not the server, limited the
	// point's load (JudgeClient), 0 when it did not.
	{name: "client_limited", q: quantityFlag,
		value: func(s *Summary) (float64, bool) {
			if s.Client == nil {
				return 0, false
			}
			return s.Client.Flag(), true
		}},
}

// gateMetricAliases maps GenAI-Perf's long metric names to the short ones.
var gateMetricAliases = map[string]string{
	"time_to_first_token":        "ttft",
	"time_to_second_token":       "ttst",
	"inter_token_latency":        "itl",
	"input_sequence_length":      "isl",
	"output_sequence_length":     "osl",
	"time_to_first_output_token": "ttfo",
}

// lookupGateMetric resolves a metric name or GenAI-Perf alias; nil when
// there is no such metric.
func lookupGateMetric(name string) *gateMetric {
	if short, ok := gateMetricAliases[name]; ok {
		name = short
	}
	for _, m := range gateMetrics {
		if m.name == name {
			return m
		}
	}
	return nil
}

// gateMetricList lists the metric names for "want one of" messages.
func gateMetricList() string {
	names := make([]string, len(gateMetrics))
	for i, m := range gateMetrics {
		names[i] = m.name
	}
	return orList(names)
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	s := words[0]
	for _, w := range words[1 : len(words)-1] {
		s += ", " + w
	}
	return s + " or " + words[len(words)-1]
}

// displayConversions are, per quantity, the conversions between the
// native unit and the unit reports show (ms for times, % for ratios).
func (q quantity) displayConversions() (toDisplay, fromDisplay unitConversion) {
	switch q {
	case quantityTime:
		return divideBy(1e6), scaleBy(1e6)
	case quantityRatio:
		return scaleBy(100), divideBy(100)
	}
	return sameUnit, sameUnit
}

// decimalIn renders the native value v in a display unit as the shortest
// plain decimal that converts back to exactly v, so that a gate rendered in
// report units parses to the same gate. ok is false when no decimal in the
// display unit gets back to v; the caller then writes v in the native unit.
func decimalIn(v float64, toDisplay, fromDisplay unitConversion) (text string, ok bool) {
	x := toDisplay(v)
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return "", false
	}
	back := func(t string) bool {
		f, err := strconv.ParseFloat(t, 64)
		return err == nil && fromDisplay(f) == v
	}
	if math.Abs(x) < 1e21 {
		for decimals := 0; decimals <= 20; decimals++ {
			if t := strconv.FormatFloat(x, 'f', decimals, 64); back(t) {
				return t, true
			}
		}
	}
	if t := strconv.FormatFloat(x, 'g', -1, 64); back(t) {
		return t, true
	}
	return "", false
}

// plainNumber renders v as the shortest decimal that parses back to it.
func plainNumber(v float64) string {
	t, _ := decimalIn(v, sameUnit, sameUnit)
	if t == "" {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return t
}
