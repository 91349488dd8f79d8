package metrics

// The inference servers' metric names. Each quantity lists alternatives in
// preference order (the current name first, then the ones older releases
// exposed); for each source the first alternative it exports is used, so
// a server exposing both a name and its deprecated alias (vLLM 0.9–0.10
// export kv_cache_usage_perc and gpu_cache_usage_perc with the same value)
// is not counted twice.
//
// Verified in the projects' sources:
//   - vLLM: vllm/v1/metrics/loggers.py (PrometheusStatLogger; versions with
//     and without inter_token_latency_seconds, where time_per_output_token
//     is marked "DEPRECATED: Use vllm:inter_token_latency_seconds") and
//     docs/design/metrics.md. Counters are declared without _total and
//     exposed with it by prometheus_client (vllm:num_preemptions →
//     vllm:num_preemptions_total); both spellings are accepted. KV-cache
//     usage is a fraction, "1 means 100 percent usage". TTFT counts from
//     the frontend's arrival time (tokenisation start).
//   - SGLang: python/sglang/srt/metrics/collector.py (00ae9c1) and the
//     scheduler's token_usage = num_used / max_total_num_tokens, a
//     fraction. sglang:cached_tokens_total / sglang:prompt_tokens_total is
//     its token-level prefix-cache hit rate; a retraction is its
//     preemption.
//   - TGI: router/src/server.rs and backends/v3/src (db931fc, Jan 2026):
//     gauges tgi_batch_current_size and tgi_queue_size; histograms (metrics
//     crate, seconds) tgi_request_queue_duration, tgi_request_duration,
//     tgi_request_inference_duration, tgi_request_mean_time_per_token_duration.
//     TGI exports no TTFT, KV-cache or prefix-cache metric.
//   - TensorRT-LLM's trtllm-serve: tensorrt_llm/metrics/collector.py
//     (trtllm_ prefix; kv_cache_utilization = usedNumBlocks / maxNumBlocks;
//     the iteration gauges need enable_iter_perf_stats); hit rate from the
//     reused/missed block counters.
//   - Triton's TensorRT-LLM backend:
//     triton_backend/inflight_batcher_llm/src/custom_metrics_reporter/
//     custom_metrics_reporter.cc: nv_trt_llm_request_metrics by
//     request_type and nv_trt_llm_kv_cache_block_metrics by
//     kv_cache_block_type. Running is request_type="active", the
//     executor's numActiveRequests, which is also what trtllm-serve
//     exports as trtllm_num_requests_running (the Kubernetes Gateway API
//     Inference Extension reads "scheduled" instead, the requests of the
//     latest iteration).
//
// Not verified in SGLang's source, taken from third-party consumers:
// sglang:time_per_output_token_seconds, the older name of its ITL
// histogram.

// seriesRef names a series by name and, optionally, one label's value:
// Triton's backend exposes a family of gauges told apart by a label.
type seriesRef struct {
	name, label, value string
}

func ref(name string) seriesRef { return seriesRef{name: name} }

// counter is a counter's name as exposed with and without the _total that
// prometheus_client appends.
func counter(name string) []seriesRef { return []seriesRef{ref(name + "_total"), ref(name)} }

// matches reports whether a series is the one named.
func (r seriesRef) matches(s *telemetrySeries) bool {
	return s.name == r.name && (r.label == "" || s.label(r.label) == r.value)
}

// serverEngine is one inference server's names for what
// ServerTelemetry reports.
type serverEngine struct {
	name string
	// running and waiting are request counts, kvCache a fraction from 0
	// to 1 (reported as %).
	running, waiting, kvCache []seriesRef
	// The prefix-cache hit rate is Δhits / Δqueries, or Δhits / (Δhits +
	// Δmisses) where the server counts misses instead of queries.
	prefixHits, prefixQueries, prefixMisses []seriesRef
	preemptions                             []seriesRef
	// promptTokens and generationTokens are the token totals (every
	// prompt token, cached ones included, and every generated token);
	// cachedPromptTokens the prompt tokens served from a cache.
	promptTokens, generationTokens, cachedPromptTokens []seriesRef
	// finishReasons is the counter of finished requests with the label
	// that names why each finished ("length", "stop", "abort").
	finishReasons     seriesRef
	finishReasonLabel string
	// latencies maps ServerLatency metrics to histogram families, whose
	// observations are in seconds.
	latencies map[string][]string
}

// The ServerLatency metrics, in the order Server.Latencies lists them.
const (
	LatencyTTFT           = "ttft"
	LatencyQueueTime      = "queue_time"
	LatencyPrefillTime    = "prefill_time"
	LatencyDecodeTime     = "decode_time"
	LatencyInferenceTime  = "inference_time"
	LatencyRequestLatency = "request_latency"
	// LatencyITL is every inter-token interval, pooled (llmbench's
	// chunk_gap); LatencyTPOT is per request, its mean time per output
	// token (GenAI-Perf's itl).
	LatencyITL  = "itl"
	LatencyTPOT = "tpot"
)

var latencyMetrics = []string{LatencyTTFT, LatencyQueueTime, LatencyPrefillTime, LatencyDecodeTime,
	LatencyInferenceTime, LatencyRequestLatency, LatencyITL, LatencyTPOT}

// serverEngines are the servers recognised, in the order a source is
// matched against them.
var serverEngines = []serverEngine{
	{
		name:    "vllm",
		running: []seriesRef{ref("vllm:num_requests_running")},
		waiting: []seriesRef{ref("vllm:num_requests_waiting")},
		kvCache: []seriesRef{ref("vllm:kv_cache_usage_perc"), ref("vllm:gpu_cache_usage_perc")},
		prefixHits: append(counter("vllm:prefix_cache_hits"),
			counter("vllm:gpu_prefix_cache_hits")...),
		prefixQueries: append(counter("vllm:prefix_cache_queries"),
			counter("vllm:gpu_prefix_cache_queries")...),
		preemptions:        counter("vllm:num_preemptions"),
		promptTokens:       counter("vllm:prompt_tokens"),
		generationTokens:   counter("vllm:generation_tokens"),
		cachedPromptTokens: counter("vllm:prompt_tokens_cached"),
		finishReasons:      ref("vllm:request_success_total"),
		finishReasonLabel:  "finished_reason",
		latencies: map[string][]string{
			LatencyTTFT:           {"vllm:time_to_first_token_seconds"},
			LatencyQueueTime:      {"vllm:request_queue_time_seconds"},
			LatencyPrefillTime:    {"vllm:request_prefill_time_seconds"},
			LatencyDecodeTime:     {"vllm:request_decode_time_seconds"},
			LatencyInferenceTime:  {"vllm:request_inference_time_seconds"},
			LatencyRequestLatency: {"vllm:e2e_request_latency_seconds"},
			LatencyITL:            {"vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"},
			LatencyTPOT:           {"vllm:request_time_per_output_token_seconds"},
		},
	},
	{
		name:               "sglang",
		running:            []seriesRef{ref("sglang:num_running_reqs")},
		waiting:            []seriesRef{ref("sglang:num_queue_reqs")},
		kvCache:            []seriesRef{ref("sglang:token_usage")},
		prefixHits:         counter("sglang:cached_tokens"),
		prefixQueries:      counter("sglang:prompt_tokens"),
		preemptions:        counter("sglang:num_retracted_requests"),
		promptTokens:       counter("sglang:prompt_tokens"),
		generationTokens:   counter("sglang:generation_tokens"),
		cachedPromptTokens: counter("sglang:cached_tokens"),
		latencies: map[string][]string{
			LatencyTTFT:           {"sglang:time_to_first_token_seconds"},
			LatencyQueueTime:      {"sglang:queue_time_seconds"},
			LatencyRequestLatency: {"sglang:e2e_request_latency_seconds"},
			LatencyITL:            {"sglang:inter_token_latency_seconds", "sglang:time_per_output_token_seconds"},
		},
	},
	{
		name:    "tgi",
		running: []seriesRef{ref("tgi_batch_current_size")},
		waiting: []seriesRef{ref("tgi_queue_size")},
		latencies: map[string][]string{
			LatencyQueueTime:      {"tgi_request_queue_duration"},
			LatencyInferenceTime:  {"tgi_request_inference_duration"},
			LatencyRequestLatency: {"tgi_request_duration"},
			LatencyTPOT:           {"tgi_request_mean_time_per_token_duration"},
		},
	},
	{
		name:         "trtllm",
		running:      []seriesRef{ref("trtllm_num_requests_running")},
		waiting:      []seriesRef{ref("trtllm_num_requests_waiting")},
		kvCache:      []seriesRef{ref("trtllm_kv_cache_utilization")},
		prefixHits:   counter("trtllm_kv_cache_reused_blocks"),
		prefixMisses: counter("trtllm_kv_cache_missed_blocks"),
		latencies: map[string][]string{
			LatencyTTFT:           {"trtllm_time_to_first_token_seconds"},
			LatencyQueueTime:      {"trtllm_request_queue_time_seconds"},
			LatencyPrefillTime:    {"trtllm_request_prefill_time_seconds"},
			LatencyDecodeTime:     {"trtllm_request_decode_time_seconds"},
			LatencyInferenceTime:  {"trtllm_request_inference_time_seconds"},
			LatencyRequestLatency: {"trtllm_e2e_request_latency_seconds"},
			LatencyTPOT:           {"trtllm_time_per_output_token_seconds"},
		},
	},
	{
		name:    "triton-trtllm",
		running: []seriesRef{{"nv_trt_llm_request_metrics", "request_type", "active"}},
		waiting: []seriesRef{{"nv_trt_llm_request_metrics", "request_type", "waiting"}},
		kvCache: []seriesRef{{"nv_trt_llm_kv_cache_block_metrics", "kv_cache_block_type", "fraction"}},
	},
}

// names lists every series name the engine's table mentions, histogram
// families by their _count series.
func (e *serverEngine) names() []string {
	var out []string
	for _, refs := range [][]seriesRef{e.running, e.waiting, e.kvCache, e.prefixHits, e.prefixQueries, e.prefixMisses, e.preemptions,
		e.promptTokens, e.generationTokens, e.cachedPromptTokens} {
		for _, r := range refs {
			out = append(out, r.name)
		}
	}
	for _, families := range e.latencies {
		for _, f := range families {
			out = append(out, f+"_count")
		}
	}
	return out
}
