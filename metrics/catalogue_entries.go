package metrics

// The catalogue's entries. Each is the one definition of its metric; the
// order of catalogue is the order reports list them.
var catalogue = []*Metric{
	TTFT, TTST, ITL, RequestLatency, TTFO, ISL, OSL,
	ImageCount, ImageBytes, AudioCount, AudioBytes, ImageThroughput, ImageLatency,
	OutputTokenThroughputPerUser, OutputTokenThroughput, RequestThroughput, RequestGoodput,
	RequestCount, ErrorRate, CacheHitShare, Duration,
	ScheduleLag, TTFTFromSchedule, RequestLatencyFromSchedule, ChunkGap,
	AchievedRequestRate, MeanConcurrency, Completed, Failed,
	EnergyPerToken, CostPerMtok, GPUPower, GPUUtilization, KVCacheUsage, NumRequestsWaiting,
	ClientLimited,
}

// The per-request latencies (SPEC §2, GenAI-Perf definitions), ns.
var (
	// TTFT is the time to the first content chunk.
	TTFT = &Metric{Name: "ttft", Aliases: []string{"time_to_first_token"}, Kind: PerRequest, q: quantityTime,
		Unit: "ms", Direction: LowerIsBetter, Need: NeedStreaming, Latency: true, summaryJSON: true,
		distribution: func(s *Summary) *Distribution { return s.TimeToFirstToken },
		request:      func(_ *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(d.TTFT)) }}
	// TTST is the time from the first content chunk to the second.
	TTST = &Metric{Name: "ttst", Aliases: []string{"time_to_second_token"}, Kind: PerRequest, q: quantityTime,
		Unit: "ms", Direction: LowerIsBetter, Need: NeedStreaming, Latency: true, summaryJSON: true,
		distribution: func(s *Summary) *Distribution { return s.TimeToSecondToken },
		request:      func(_ *Record, d RequestMetrics) []float64 { return some(d.HasTTST, float64(d.TTST)) }}
	// ITL is the inter-token latency, one value per request.
	ITL = &Metric{Name: "itl", Aliases: []string{"inter_token_latency"}, Kind: PerRequest, q: quantityTime,
		Unit: "ms", Direction: LowerIsBetter, Need: NeedStreaming, Latency: true, summaryJSON: true,
		distribution: func(s *Summary) *Distribution { return s.InterTokenLatency },
		request:      func(_ *Record, d RequestMetrics) []float64 { return some(d.HasITL, float64(d.ITL)) }}
	// RequestLatency is the time to the last content chunk.
	RequestLatency = &Metric{Name: "request_latency", Kind: PerRequest, q: quantityTime,
		Unit: "ms", Direction: LowerIsBetter, Latency: true, summaryJSON: true,
		distribution: func(s *Summary) *Distribution { return s.RequestLatency },
		request:      func(_ *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(d.Latency)) }}
	// TTFO is the time to the first answer (non-reasoning) token.
	TTFO = &Metric{Name: "ttfo", Aliases: []string{"time_to_first_output_token"}, Kind: PerRequest, q: quantityTime,
		Unit: "ms", Direction: LowerIsBetter, Need: NeedStreaming, Latency: true, summaryJSON: true,
		distribution: func(s *Summary) *Distribution { return s.TimeToFirstOutputToken },
		request:      func(_ *Record, d RequestMetrics) []float64 { return some(d.HasTTFO, float64(d.TTFO)) }}
)

// The per-request token counts and rate.
var (
	// ISL is the input sequence length.
	ISL = &Metric{Name: "isl", Aliases: []string{"input_sequence_length"}, Kind: PerRequest, q: quantityTokens,
		Unit: "tokens", summaryJSON: true,
		distribution: func(s *Summary) *Distribution { return s.InputSequenceLength },
		request:      func(_ *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(d.ISL)) }}
	// OSL is the output sequence length.
	OSL = &Metric{Name: "osl", Aliases: []string{"output_sequence_length"}, Kind: PerRequest, q: quantityTokens,
		Unit: "tokens", summaryJSON: true,
		distribution: func(s *Summary) *Distribution { return s.OutputSequenceLength },
		request:      func(_ *Record, d RequestMetrics) []float64 { return some(d.HasContent, float64(d.OSL)) }}
	// OutputTokenThroughputPerUser is 1/ITL per request.
	OutputTokenThroughputPerUser = &Metric{Name: "output_token_throughput_per_user", Kind: PerRequest,
		q: quantityThroughput, Unit: "tokens/s/user", Direction: HigherIsBetter, Need: NeedStreaming, summaryJSON: true,
		distribution: func(s *Summary) *Distribution { return s.OutputTokenThroughputPerUser },
		request:      func(_ *Record, d RequestMetrics) []float64 { return some(d.HasTPSUser, d.TPSUser) }}
)

// The run-level values.
var (
	// OutputTokenThroughput is output tokens per second of the run.
	OutputTokenThroughput = &Metric{Name: "output_token_throughput", Kind: PerRun, q: quantityThroughput,
		Unit: "tokens/s", Direction: HigherIsBetter, summaryJSON: true,
		value: func(s *Summary) (float64, bool) { return s.OutputTokenThroughput, true },
		wholeRun: func(rows []seriesRow) []float64 {
			return rowRates(rows, func(r seriesRow) float64 { return float64(r.outputTokens) })
		}}
	// RequestThroughput is completed requests per second.
	RequestThroughput = &Metric{Name: "request_throughput", Kind: PerRun, q: quantityThroughput,
		Unit: "requests/s", Direction: HigherIsBetter, summaryJSON: true,
		value:    func(s *Summary) (float64, bool) { return s.RequestThroughput, true },
		wholeRun: func(rows []seriesRow) []float64 { return rowRates(rows, func(seriesRow) float64 { return 1 }) }}
	// RequestGoodput is requests meeting every goodput SLO per second.
	RequestGoodput = &Metric{Name: "request_goodput", Kind: PerRun, q: quantityThroughput,
		Unit: "requests/s", Direction: HigherIsBetter, Need: NeedGoodput, summaryJSON: true,
		value: func(s *Summary) (float64, bool) {
			if s.RequestGoodput == nil {
				return 0, false
			}
			return *s.RequestGoodput, true
		}}
	// RequestCount is GenAI-Perf's request count: completed requests with
	// at least one content chunk.
	RequestCount = &Metric{Name: "request_count", Kind: PerRun, q: quantityTally, Unit: "requests",
		reportOnly: true, summaryJSON: true,
		value: func(s *Summary) (float64, bool) { return float64(s.RequestCount), true }}
	// ErrorRate is failed over all requests, a ratio.
	ErrorRate = &Metric{Name: "error_rate", Kind: PerRun, q: quantityRatio, Unit: "%", Direction: LowerIsBetter,
		whole: "every request fails", unmeasuredWhenEmpty: true, summaryJSON: true,
		value: func(s *Summary) (float64, bool) { return s.ErrorRate, true },
		wholeRun: func(rows []seriesRow) []float64 {
			out := make([]float64, len(rows))
			for i, r := range rows {
				out[i] = indicator(r.failed)
			}
			return out
		}}
	// CacheHitShare is the share of prompt tokens the server served from
	// its prefix cache; unmeasured, so a gate on it fails, when the server
	// reports no cached-token counts.
	CacheHitShare = &Metric{Name: "cache_hit_share", Kind: PerRun, q: quantityRatio, Unit: "%",
		value: func(s *Summary) (float64, bool) {
			if s.PrefixCache == nil {
				return 0, false
			}
			return s.PrefixCache.Share, true
		}}
	// Duration is GenAI-Perf's benchmark duration, ns.
	Duration = &Metric{Name: "duration", Kind: PerRun, q: quantityTime, Unit: "ms", reportOnly: true, summaryJSON: true,
		value: func(s *Summary) (float64, bool) { return float64(s.Duration), true }}
)

// The open-loop and per-chunk distributions, ns.
var (
	// ScheduleLag is actual minus planned send time.
	ScheduleLag = &Metric{Name: "schedule_lag", Kind: PerRequest, q: quantityTime, Unit: "ms",
		Direction: LowerIsBetter, Need: NeedOpenLoop, summaryJSON: true,
		distribution: func(s *Summary) *Distribution { return s.ScheduleLag },
		request: func(r *Record, _ RequestMetrics) []float64 {
			return some(r.Scheduled != 0, float64(r.Sent-r.Scheduled))
		}}
	// TTFTFromSchedule is TTFT from the planned send time.
	TTFTFromSchedule = &Metric{Name: "ttft_from_schedule", Kind: PerRequest, q: quantityTime, Unit: "ms",
		Direction: LowerIsBetter, Need: NeedOpenLoop, summaryJSON: true,
		distribution: func(s *Summary) *Distribution { return s.TTFTFromSchedule },
		request: func(_ *Record, d RequestMetrics) []float64 {
			return some(d.HasFromSchedule, float64(d.TTFTFromSchedule))
		}}
	// RequestLatencyFromSchedule is the request latency from the planned
	// send time.
	RequestLatencyFromSchedule = &Metric{Name: "request_latency_from_schedule", Kind: PerRequest, q: quantityTime,
		Unit: "ms", Direction: LowerIsBetter, Need: NeedOpenLoop, summaryJSON: true,
		distribution: func(s *Summary) *Distribution { return s.RequestLatencyFromSchedule },
		request: func(_ *Record, d RequestMetrics) []float64 {
			return some(d.HasFromSchedule, float64(d.LatencyFromSchedule))
		}}
	// ChunkGap pools every gap between consecutive content chunks.
	ChunkGap = &Metric{Name: "chunk_gap", Kind: PerRequest, q: quantityTime, Unit: "ms",
		Direction: LowerIsBetter, Need: NeedStreaming,
		distribution: func(s *Summary) *Distribution { return s.ChunkGap },
		request: func(r *Record, _ RequestMetrics) []float64 {
			gaps := make([]float64, 0, r.GapCount())
			for g := range r.ChunkGaps() {
				gaps = append(gaps, float64(g))
			}
			return gaps
		}}
)

// The load the run achieved and its request counts, report-only.
var (
	// AchievedRequestRate is the sent requests' rate, to set against the
	// target rate.
	AchievedRequestRate = &Metric{Name: "achieved_request_rate", Kind: PerRun, q: quantityThroughput,
		Unit: "requests/s", reportOnly: true, summaryJSON: true,
		value: func(s *Summary) (float64, bool) { return s.AchievedRequestRate, true }}
	// MeanConcurrency is the time-weighted number of requests in flight.
	MeanConcurrency = &Metric{Name: "mean_concurrency", Kind: PerRun, q: quantityCount, Unit: "requests",
		reportOnly: true, summaryJSON: true,
		value: func(s *Summary) (float64, bool) { return s.MeanConcurrency, true }}
	// Completed counts the requests that completed.
	Completed = &Metric{Name: "completed", Kind: PerRun, q: quantityTally, Unit: "requests", reportOnly: true,
		value: func(s *Summary) (float64, bool) { return float64(s.Completed), true }}
	// Failed counts the requests that failed.
	Failed = &Metric{Name: "failed", Kind: PerRun, q: quantityTally, Unit: "requests", reportOnly: true,
		value: func(s *Summary) (float64, bool) { return float64(s.Failed), true }}
)

// The metrics of scraped telemetry and of the deployment's price. GPU
// telemetry is a series of samples, which GenAI-Perf reports with avg,
// min, max and percentiles; so are the server's gauges.
var (
	// EnergyPerToken is joules per output token over the point.
	EnergyPerToken = &Metric{Name: "energy_per_token", Kind: Telemetry, q: quantityEnergy, Unit: "J/token",
		Direction: LowerIsBetter, Need: NeedTelemetry,
		telemetry: func(g Gate, t *TelemetrySummary) (float64, error) { return g.telemetryValue(t.EnergyPerToken) }}
	// CostPerMtok is the price of a million output tokens, in the
	// currency of cost_per_hour.
	CostPerMtok = &Metric{Name: "cost_per_mtok", Kind: PerRun, q: quantityCost, Unit: "per Mtok",
		Direction: LowerIsBetter, Need: NeedCost,
		telemetry: func(g Gate, t *TelemetrySummary) (float64, error) { return g.telemetryValue(t.CostPerMillionTokens) },
		run:       Gate.costOfRun}
	// GPUPower is the total power across GPUs at each scrape, W.
	GPUPower = &Metric{Name: "gpu_power", Kind: Telemetry, q: quantityPower, Unit: "W", sampled: true,
		Need: NeedTelemetry, PerGPU: true,
		telemetry: func(g Gate, t *TelemetrySummary) (float64, error) {
			return g.gpuStatistic(t, t.Power, "gpu_power_usage", 1)
		}}
	// GPUUtilization is the mean utilisation across GPUs at each scrape,
	// DCGM's % held as a ratio.
	GPUUtilization = &Metric{Name: "gpu_utilization", Kind: Telemetry, q: quantityRatio, Unit: "%", sampled: true,
		Need: NeedTelemetry, PerGPU: true,
		telemetry: func(g Gate, t *TelemetrySummary) (float64, error) {
			return g.gpuStatistic(t, t.Utilization, "gpu_utilization", 100)
		}}
	// KVCacheUsage is the fullest engine's KV-cache use at each scrape,
	// the server's % held as a ratio.
	KVCacheUsage = &Metric{Name: "kv_cache_usage", Kind: Telemetry, q: quantityRatio, Unit: "%", sampled: true,
		Need: NeedTelemetry,
		telemetry: func(g Gate, t *TelemetrySummary) (float64, error) {
			return g.scaledStatistic(t.Server.KVCacheUsage, 100, "the server exports no KV-cache use")
		}}
	// NumRequestsWaiting is the queue length summed across engines at
	// each scrape.
	NumRequestsWaiting = &Metric{Name: "num_requests_waiting", Kind: Telemetry, q: quantityCount, Unit: "requests",
		sampled: true, Need: NeedTelemetry,
		telemetry: func(g Gate, t *TelemetrySummary) (float64, error) {
			return g.scaledStatistic(t.Server.Waiting, 1, "the server exports no queue length")
		}}
)

// ClientLimited is 1 when the client, not the server, limited the
// point's load (JudgeClient), 0 when it did not.
var ClientLimited = &Metric{Name: "client_limited", Kind: PerRun, q: quantityFlag,
	value: func(s *Summary) (float64, bool) {
		if s.Client == nil {
			return 0, false
		}
		return s.Client.Flag(), true
	}}
