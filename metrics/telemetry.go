package metrics

import "fmt"

// This file is the entry point of the telemetry reductions (SPEC §8): the
// samples a point's scrapes produced go in, with the point's window; what
// reports print and gates judge comes out. The pieces live beside it:
// telemetry_prepare.go (cleaning), telemetry_dcgm.go (GPUs and GenAI-Perf's
// fields), telemetry_align.go (totals across GPUs per scrape),
// telemetry_energy.go (counters interpolated at the window's edges),
// telemetry_server*.go (inference-server gauges, counters and name tables)
// and telemetry_histogram.go (the server's own latency histograms).

// TelemetryWindow is the span of one sweep point that its telemetry is
// reduced over, on the clock of TelemetrySample.Time and Record.Sent.
type TelemetryWindow struct {
	// Start and End are the point's first request sent and last response
	// received, in ns: the instants GenAI-Perf's duration runs between, so
	// that energy and throughput cover the same time.
	Start, End int64
	// OutputTokens is Σ osl over the point's completed requests; energy per
	// token and cost per token divide by it.
	OutputTokens float64
	// CostPerHour is the deployment's price per hour (cost_per_hour=), 0
	// when none was given; Currency names its unit for reports ("USD").
	CostPerHour float64
	Currency    string
	// Share, when not "", says OutputTokens are only part of the tokens
	// the GPUs and the server produced in the window — a shard's share of
	// a point whose other shards load the same server — and why. Energy
	// per token, tokens per joule and cost per token are then unknown for
	// that reason, not N times too high: the merged point has them.
	Share string
}

// seconds is the window's length in seconds.
func (w TelemetryWindow) seconds() float64 { return float64(w.End-w.Start) / 1e9 }

// TelemetryValue is a number the telemetry may fail to determine, such as
// energy when the scrapes did not bracket the point. OK false means it is
// unknown, and Why says what was missing in words a report can print.
type TelemetryValue struct {
	Value float64
	OK    bool
	Why   string
}

func knownValue(v float64) TelemetryValue { return TelemetryValue{Value: v, OK: true} }

func unknownValue(format string, args ...any) TelemetryValue {
	return TelemetryValue{Why: fmt.Sprintf(format, args...)}
}

// TelemetrySummary is one point's telemetry, reduced. Every part may be
// absent: an endpoint exporting only vLLM's metrics has no GPUs, a DCGM
// exporter alone has no Server part. A nil *Distribution means no samples.
type TelemetrySummary struct {
	Window TelemetryWindow
	// GPUs are the GPUs seen, ordered by source and then GPU index, each
	// with GenAI-Perf's statistics of every DCGM field it exported.
	GPUs []GPUTelemetry
	// Power is the total power of all GPUs, one value per scrape (W): what
	// gpu_power gates judge.
	Power *Distribution
	// Utilization is the mean DCGM_FI_DEV_GPU_UTIL across GPUs, one value
	// per scrape, in % as DCGM reports it: what gpu_utilization gates judge.
	Utilization *Distribution
	// Energy is Σ over GPUs of each GPU's energy counter delta over the
	// window (J); unknown when any GPU's is.
	Energy TelemetryValue
	// AveragePower is Energy / (End − Start), in W.
	AveragePower TelemetryValue
	// EnergyPerToken is Energy / OutputTokens (J/token); TokensPerJoule its
	// inverse.
	EnergyPerToken, TokensPerJoule TelemetryValue
	// CostPerMillionTokens is CostPerHour / (output_token_throughput ×
	// 3600) × 1e6, in Window.Currency, the throughput being OutputTokens /
	// (End − Start) (see CostPerMillionTokens).
	CostPerMillionTokens TelemetryValue
	// Server is what the inference server itself exported.
	Server ServerTelemetry
	// Notes say what the input held that was not used, and why: NaN
	// values, duplicate samples, counter resets, series without a GPU.
	Notes []string
	// Simulated is true when every figure above comes from llmbench's
	// simulator (SimulatedMarker): made up, never to be read as measured.
	Simulated bool
	// SimulatedSources are the sources whose pages carried the marker,
	// and SimulatedLeftOut those of them no figure reads, because real
	// exporters were scraped too.
	SimulatedSources, SimulatedLeftOut []string
	// Warnings say what a reader must know of what was left out (a
	// simulated source beside real ones), for reports to print with the
	// scraper's warnings.
	Warnings []string
}

// ReduceTelemetry reduces the samples of one point's scrapes (any order,
// any mix of sources) over the point's window. Samples may reach outside
// the window, and should: the counters (energy, prefix cache, preemptions)
// are interpolated at Start and End between the samples around them, and
// the server's histograms are differenced between the last scrape at or
// before Start and the first at or after End, so the scraper should keep
// one scrape before the first send and one after the last response.
// Statistics of sampled values (power, utilisation, queue lengths) use only
// the samples inside [Start, End], both edges included.
func ReduceTelemetry(samples []TelemetrySample, w TelemetryWindow) TelemetrySummary {
	d := prepareTelemetry(samples)
	s := TelemetrySummary{Window: w, Simulated: d.sources.allSimulated(), SimulatedSources: d.sources.simulated,
		SimulatedLeftOut: d.sources.leftOut, Warnings: d.sources.warnings()}
	if w.End <= w.Start {
		s.Notes = append(d.notes, fmt.Sprintf("the window is empty (end %d ns is not after start %d ns), so nothing was reduced", w.End, w.Start))
		empty := unknownValue("the window is empty")
		s.Energy, s.Server.PrefixCacheHitRate, s.Server.Preemptions = empty, empty, empty
		s.Server.PromptTokens, s.Server.GenerationTokens, s.Server.CachedPromptTokens = empty, empty, empty
		s.deriveEnergy()
		return s
	}
	gpus := collectGPUs(d)
	s.GPUs = reduceGPUs(gpus, w, s.Simulated)
	s.Power, s.Utilization = gpuTotals(gpus, w)
	s.Energy = totalEnergy(s.GPUs)
	s.deriveEnergy()
	s.Server = reduceServer(d, w)
	s.Notes = append(d.notes, gpuNotes(s.GPUs)...)
	s.Notes = uniqueNotes(append(s.Notes, s.Server.notes...))
	return s
}

// uniqueNotes drops repeated notes (one per series of a field, say),
// keeping the first of each in order.
func uniqueNotes(notes []string) []string {
	seen := map[string]bool{}
	out := notes[:0]
	for _, n := range notes {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// deriveEnergy fills the values computed from Energy, the window and the
// price.
func (s *TelemetrySummary) deriveEnergy() {
	w := s.Window
	tokens := w.OutputTokens
	switch {
	case !s.Energy.OK:
		s.AveragePower = unknownValue("%s", s.Energy.Why)
		s.EnergyPerToken = unknownValue("%s", s.Energy.Why)
		s.TokensPerJoule = unknownValue("%s", s.Energy.Why)
	default:
		s.AveragePower = knownValue(s.Energy.Value / w.seconds())
		s.EnergyPerToken, s.TokensPerJoule = perToken(s.Energy.Value, tokens)
	}
	s.CostPerMillionTokens = costPerMillion(w)
	if w.Share != "" {
		share := unknownValue("%s", w.Share)
		s.EnergyPerToken, s.TokensPerJoule, s.CostPerMillionTokens = share, share, share
	}
}

// perToken divides energy by output tokens both ways.
func perToken(joules, tokens float64) (perToken, perJoule TelemetryValue) {
	if tokens <= 0 {
		none := unknownValue("the point produced no output tokens")
		return none, none
	}
	perToken = knownValue(joules / tokens)
	if joules <= 0 {
		return perToken, unknownValue("the GPUs' energy counters did not advance")
	}
	return perToken, knownValue(tokens / joules)
}

// costPerMillion is CostPerMillionTokens at the window's throughput.
func costPerMillion(w TelemetryWindow) TelemetryValue {
	switch {
	case w.CostPerHour <= 0:
		return unknownValue("no price was given (cost_per_hour=)")
	case w.OutputTokens <= 0 || w.End <= w.Start:
		return unknownValue("the point produced no output tokens")
	}
	v, _ := CostPerMillionTokens(w.CostPerHour, w.OutputTokens/w.seconds())
	return knownValue(v)
}
