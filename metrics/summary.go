package metrics

// Distribution is the statistics of one metric over a run, in the metric's
// native unit (nanoseconds for times, tokens for lengths, tokens/s for
// per-user throughput). Reports scale time metrics to ms stat by stat, as
// GenAI-Perf does, so the floating-point results match its files exactly.
type Distribution struct {
	// Count is the number of values the statistics were computed over.
	Count int
	// Avg is the arithmetic mean; Std the population standard deviation
	// (numpy's default, ddof=0).
	Avg, Min, Max, Std float64
	// The fixed percentiles GenAI-Perf reports, by linear interpolation
	// between closest ranks (numpy's default method).
	P1, P5, P10, P25, P50, P75, P90, P95, P99 float64

	// sorted keeps the values so any other percentile (p99.9) can be asked
	// for; hist answers instead for a distribution too large to keep.
	sorted []float64
	hist   *logHistogram
	// scales are the factors Scaled applied, in order; Percentile applies
	// them to what it interpolates in sorted's unit.
	scales []float64
}

// Summary is everything a run measured, reduced: what the GenAI-Perf JSON,
// CSV and console table print, plus llmbench's additions. A nil
// *Distribution means the metric does not apply or had no values (for
// example TTST when no request had two content chunks), and reports print
// it as absent the way GenAI-Perf does.
type Summary struct {
	// Per-request distributions, GenAI-Perf definitions (SPEC §2).
	TimeToFirstToken             *Distribution // ns
	TimeToSecondToken            *Distribution // ns
	InterTokenLatency            *Distribution // ns, one value per request
	RequestLatency               *Distribution // ns
	OutputTokenThroughputPerUser *Distribution // tokens/s/user
	OutputSequenceLength         *Distribution // tokens
	InputSequenceLength          *Distribution // tokens
	// TimeToFirstOutputToken is the time to the first answer (non-reasoning)
	// token; nil unless some request streamed reasoning_content.
	TimeToFirstOutputToken *Distribution // ns
	// Media is the pictures and clips per request and the image metrics;
	// nil unless some request carried media.
	Media *MediaSummary `json:",omitempty"`

	// Per-run scalars: GenAI-Perf reports them avg-only.
	OutputTokenThroughput float64 // tokens/s
	RequestThroughput     float64 // requests/s, over completed requests
	// RequestGoodput is nil unless goodput SLOs were given.
	RequestGoodput *float64 // requests/s
	// RequestCount counts completed requests with at least one content chunk.
	RequestCount int

	// Completed and Failed partition every measured (non-warmup) request.
	Completed, Failed int
	// Retried counts the requests sent again on a fresh connection because
	// they never reached the server (Record.Retries): a keep-alive
	// connection it had closed took the write. Client-side races, not
	// server errors; a request the server may have read is never resent.
	Retried int
	// Warmup counts the records an auto point's warm-up rule dropped
	// (Record.Warmup): measured, kept in records.parquet, in no metric.
	Warmup int
	// ErrorRate is Failed / (Completed + Failed), 0 for an empty run.
	ErrorRate float64
	// Errors groups failures by (class, status, message with per-request
	// parts masked: NormalizeMessage), most frequent first.
	Errors []ErrorCount

	// Duration is the last content chunk of any request minus the first
	// request sent, in ns (GenAI-Perf's benchmark duration), both over the
	// completed requests with content.
	Duration int64
	// Client says whether the client itself limited the load (set by the
	// engine, which measured its CPU); nil when not judged.
	Client *ClientVerdict `json:",omitempty"`

	// Start and End bound Duration: the first request sent and the last
	// content chunk, in ns on the records' clock — the window the point's
	// telemetry (energy, server histograms) is reduced over.
	Start, End int64

	// Beyond GenAI-Perf.
	// ChunkGap pools every gap between consecutive content chunks of every
	// request (the per-chunk ITL distribution), ns.
	ChunkGap *Distribution
	// ScheduleLag is actual minus planned send time of open-loop requests,
	// ns; nil in a closed loop.
	ScheduleLag *Distribution
	// TTFTFromSchedule and RequestLatencyFromSchedule are TTFT and request
	// latency measured from each request's planned send instant
	// (RequestMetrics.TTFTFromSchedule), over the completed open-loop
	// requests with content, ns; nil in a closed loop.
	TTFTFromSchedule           *Distribution
	RequestLatencyFromSchedule *Distribution
	// AchievedRequestRate is the intervals between sends (sent requests
	// − 1) / span of send times (req/s), to set against the target rate.
	AchievedRequestRate float64
	// MeanConcurrency is the time-weighted number of requests in flight.
	MeanConcurrency float64
	// Sessions is the per-session and per-turn view of a conversation
	// point; nil for single-turn requests.
	Sessions *SessionSummary `json:",omitempty"`

	// Views is the same requests under vLLM's, GuideLLM's, LLMPerf's and
	// AIPerf's definitions (docs/metrics.md); nil in a summary decoded
	// from a checkpoint written before views existed.
	Views *Views `json:",omitempty"`

	// PrefixCache is the share of the prompt tokens the server said it
	// served from its prefix cache; nil when no completed request's usage
	// carried a cached-token count (the server does not report one).
	PrefixCache *PrefixCacheShare `json:",omitempty"`
}

// ErrorCount is one row of the error list: how many requests failed the
// same way.
type ErrorCount struct {
	Class  ErrorClass
	Status int
	// Message is one real message of the group (the smallest in byte
	// order); the others differ from it only in what NormalizeMessage
	// masks.
	Message string
	Count   int
}
