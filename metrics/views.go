package metrics

// Views is the same records summarized under the definitions of the other
// tools people benchmark LLM servers with (SPEC §12, "every tool's
// definitions, side by side"), so a number read off vLLM's, GuideLLM's,
// LLMPerf's or AIPerf's console can be compared with llmbench's like for
// like. GenAI-Perf's view is the Summary itself (the default). Each view
// keeps its tool's units: docs/metrics.md cites the source of every
// formula and says where the tools differ.
type Views struct {
	VLLM     VLLMView
	GuideLLM GuideLLMView
	LLMPerf  LLMPerfView
	AIPerf   AIPerfView
}

// VLLMView is `vllm bench serve` (vllm/benchmarks/serve.py,
// calculate_metrics): TPOT excludes the first token and 1-token requests,
// ITL pools every chunk gap, E2EL is the request latency, statistics are
// mean, median, population std and numpy-linear percentiles, throughputs
// run over the benchmark's wall time (first send to the last response of
// any request, failed ones included).
type VLLMView struct {
	Completed, Failed int
	// Duration is the benchmark duration, s.
	Duration float64
	// TotalInput and TotalOutput sum ISL and OSL over completed requests.
	TotalInput, TotalOutput int64
	// Throughputs per second of Duration.
	RequestThroughput, OutputThroughput, TotalTokenThroughput float64
	// MaxOutputTokensPerS is vLLM's "peak output token throughput": the
	// most content chunks (vLLM counts one token per chunk there) that
	// arrived within one whole second counted from the first send of a
	// completed request.
	MaxOutputTokensPerS float64
	// MaxConcurrentRequests is the most completed requests in flight at
	// once, each from its send to its last chunk.
	MaxConcurrentRequests int
	// TTFT, TPOT, ITL and E2EL are in ms.
	TTFT, TPOT, ITL, E2EL VLLMStats
}

// VLLMStats is one vLLM metric: numpy over the values, 0 for every
// statistic when there is none (vLLM's `np.mean(x or 0)`).
type VLLMStats struct {
	Count                        int
	Mean, Median, Std            float64
	P25, P50, P75, P90, P95, P99 float64
}

// GuideLLMView is `guidellm benchmark` (src/guidellm/benchmark/schemas/
// metrics.py, GenerativeMetrics.compile): TPOT includes the first token
// (latency to the last token / output tokens) and is weighted by output
// tokens, ITL is weighted by output tokens − 1, percentiles are the
// weighted inverse CDF (no interpolation), request latency runs to the end
// of the response, and the server throughputs count every request over the
// benchmark window.
type GuideLLMView struct {
	// Successful, Incomplete (canceled when the run stopped) and Errored
	// partition the requests sent; Total is their sum.
	Successful, Incomplete, Errored, Total int
	// Duration is the benchmark window, first send to the last request's
	// end, s.
	Duration float64
	// RequestLatency is in s; TTFT, TTFOT, ITL and TPOT in ms, all over
	// successful requests.
	RequestLatency, TTFT, TTFOT, ITL, TPOT GuideLLMDist
	// RequestConcurrency is the time-weighted number of requests in flight
	// over the window, every request counted.
	RequestConcurrency GuideLLMDist
	// The means of GuideLLM's per-second rate distributions over the
	// window, every request counted (its "All Requests" table).
	RequestsPerSecond, PromptTokensPerSecond, OutputTokensPerSecond, TokensPerSecond float64
}

// GuideLLMDist is GuideLLM's DistributionSummary of weighted values.
type GuideLLMDist struct {
	Mean, Median, Mode, Variance, StdDev, Min, Max float64
	// Count is GuideLLM's count: the sum of the weights (so TPOT's count
	// is the total output tokens).
	Count    int
	TotalSum float64
	// Percentiles, p001 being the 0.1th and p999 the 99.9th.
	P001, P01, P05, P10, P25, P50, P75, P90, P95, P99, P999 float64
}

// LLMPerfView is ray-project/llmperf (token_benchmark_ray.py,
// metrics_summary): ITL includes TTFT (time to the last content chunk /
// chunks received), E2E runs to the end of the response, the per-request
// throughput is output tokens / E2E, statistics are pandas' (sample std,
// ddof=1; linear quantiles), and the overall throughput is output tokens
// over the test's wall time. Times are in s.
type LLMPerfView struct {
	InterTokenLatency, TTFT, EndToEndLatency LLMPerfStats
	RequestOutputThroughput                  LLMPerfStats // tokens/s
	NumberInputTokens, NumberOutputTokens    LLMPerfStats
	NumRequestsStarted, NumErrors            int
	// ErrorRate is NumErrors / NumRequestsStarted (0 to 1).
	ErrorRate float64
	// MeanOutputThroughput is total output tokens / wall time, tokens/s.
	MeanOutputThroughput float64
	NumCompletedRequests int
	CompletedPerMinute   float64
	// WallTime is first send to the last response end of any request, s.
	WallTime float64
}

// LLMPerfStats is one LLMPerf metric over completed requests; Stddev is
// nil with fewer than two values (pandas gives NaN).
type LLMPerfStats struct {
	Count                        int
	Mean, Min, Max               float64
	Stddev                       *float64
	P25, P50, P75, P90, P95, P99 float64
}

// AIPerfView is NVIDIA AIPerf (aiperf/metrics/types/*): GenAI-Perf's
// definitions without its rounding — ITL is the unrounded
// (latency − TTFT) / (OSL − 1) for every request with OSL ≥ 2, and the
// per-user throughput its inverse. Distributions are in native units (ns
// for times), like Summary's; the metrics equal to GenAI-Perf's share
// Summary's distributions.
type AIPerfView struct {
	TimeToFirstToken, TimeToSecondToken, RequestLatency *Distribution // ns
	InterTokenLatency                                   *Distribution // ns, unrounded
	OutputTokenThroughputPerUser                        *Distribution // tokens/s/user
	OutputSequenceLength, InputSequenceLength           *Distribution // tokens
	OutputTokenThroughput, RequestThroughput            float64
	// RequestGoodput is nil without goodput SLOs.
	RequestGoodput                  *float64
	RequestCount, ErrorRequestCount int
	// BenchmarkDuration is the last response − the first request, ns.
	BenchmarkDuration int64
}
