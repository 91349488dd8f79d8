package genaiperf

import (
	"io"

	"github.com/llmbench/llmbench/metrics"
)

// jsonStats is the order of statistics inside one metric of
// profile_export_genai_perf.json (Statistics.stats_dict).
var jsonStats = []string{"avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "min", "max", "std"}

// WriteJSON writes profile_export_genai_perf.json: GenAI-Perf's statistics
// in its key order and units, llmbench's additions after them, then
// "input_config" (the run's configuration in GenAI-Perf's shape) and a final
// "llmbench" block. Metrics the run did not measure (nil distributions) are
// omitted, as GenAI-Perf omits them. Like json.dumps the text has no
// trailing newline.
//
// llmbench additions, each in GenAI-Perf's {"unit", "avg", ...} shape and
// placed after "input_sequence_length" so GenAI-Perf's keys stay in place:
//   - "error_count" {"unit": "count"}: failed requests (float, like
//     request_count).
//   - "error_rate" {"unit": "ratio"}: failed / (completed + failed), from 0
//     to 1, the value `error_rate` gates compare against.
//   - "time_to_first_output_token" {"unit": "ms", full statistics}: only
//     when a reasoning model streamed reasoning_content.
//
// The final "llmbench" object holds what has no GenAI-Perf counterpart:
// "tokenizer" (what the run really loaded, "none" when it loaded none,
// whatever input_config's GenAI-Perf default says), "token_counting", "completed", "failed", "errors" (a list of {"class",
// "status", "message", "count"}), and when they apply
// "request_distribution", "target_request_rate", "achieved_request_rate",
// "mean_concurrency", and "schedule_lag", "ttft_from_schedule",
// "request_latency_from_schedule" (open loop: TTFT and request latency
// from each request's planned send instant) and "chunk_gap" as ms
// statistics.
//
// A conversation point adds GenAI-Perf's "sessions" after input_config:
// per session id, the session's statistics in the shape above.
func WriteJSON(w io.Writer, r *Run, s *metrics.Summary) error {
	doc := statsObject(r, s)
	if ts := telemetryStats(r.Telemetry); ts != nil {
		doc.set("telemetry_stats", ts)
	} else if r.aggregate != nil && r.aggregate.Telemetry != nil {
		doc.set("telemetry_stats", r.aggregate.Telemetry)
	}
	doc.set("input_config", inputConfig(r))
	if s.Sessions != nil {
		doc.set("sessions", sessionsObject(r, s.Sessions))
	}
	doc.set("llmbench", llmbenchBlock(r, s))
	b, err := marshal(doc, pythonIndent)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// statsObject builds the statistics part, GenAI-Perf's stats_dict: the
// attributes of LLMMetrics (or of Metrics for embeddings) in declaration
// order, then llmbench's additions.
func statsObject(r *Run, s *metrics.Summary) *object {
	o := &object{}
	o.set("request_throughput", avgOnly("requests/sec", s.RequestThroughput))
	setDist(o, mLatency, s)
	if s.RequestGoodput != nil {
		o.set("request_goodput", avgOnly("requests/sec", *s.RequestGoodput))
	}
	o.set("request_count", avgOnly("count", float64(s.RequestCount)))
	if r.isImageRetrieval() {
		setDist(o, mImageThroughput, s)
		setDist(o, mImageLatency, s)
	}
	if r.isLLM() {
		setDist(o, mTTFT, s)
		setDist(o, mTTST, s)
		setDist(o, mITL, s)
		o.set("output_token_throughput", avgOnly("tokens/sec", s.OutputTokenThroughput))
		setDist(o, mTPSUser, s)
		setDist(o, mOSL, s)
		setDist(o, mISL, s)
	}
	o.set("error_count", avgOnly("count", float64(s.Failed)))
	o.set("error_rate", avgOnly("ratio", s.ErrorRate))
	if r.isLLM() {
		setDist(o, mTTFO, s)
	}
	return o
}

// sessionsObject is GenAI-Perf's per-session block: each session's own
// statistics, by id, in the order sessions started (its
// _postprocess_session_metrics), with throughputs over the session's span.
func sessionsObject(r *Run, s *metrics.SessionSummary) *object {
	o := &object{}
	for i := range s.BySession {
		o.set(s.BySession[i].ID, statsObject(r, &s.BySession[i].Summary))
	}
	return o
}

// avgOnly is the shape of a system (throughput-type) metric.
func avgOnly(unit string, v float64) *object {
	return (&object{}).set("unit", unit).set("avg", v)
}

// setDist adds metric m with all its statistics, unless it was not
// measured.
func setDist(o *object, m requestMetric, s *metrics.Summary) {
	if d := m.dist(s); d != nil {
		o.set(m.key(), distObject(m.unit, d))
	}
}

// distObject is the shape of a per-request metric: unit, then every
// statistic in jsonStats order.
func distObject(unit string, d *metrics.Distribution) *object {
	o := (&object{}).set("unit", unit)
	for _, name := range jsonStats {
		o.set(name, stat(d, name))
	}
	return o
}

// llmbenchBlock is the last top-level key: what a run needs to be read
// correctly that GenAI-Perf has no place for. It sits outside input_config
// because `genai-perf process-export-files` parses input_config's sections
// back into its config classes, which raise on keys they do not know.
func llmbenchBlock(r *Run, s *metrics.Summary) *object {
	o := (&object{}).
		set("tokenizer", orDefault(r.Tokenizer, "none")).
		set("token_counting", r.TokenCounting).
		set("completed", s.Completed).
		set("failed", s.Failed).
		set("errors", errorList(s.Errors))
	if r.Partial {
		o.set("partial", true) // absent means complete, as in every earlier file
	}
	if s.Retried > 0 {
		o.set("retried", s.Retried) // sent again on a fresh connection: never reached the server
	}
	if r.Stimulus.Mode() == "request_rate" && r.Stimulus.SessionConcurrency == 0 && r.Stimulus.SessionRate == 0 && r.Stimulus.Users == 0 {
		o.set("request_distribution", r.RequestDistribution)
		o.set("target_request_rate", avgOnly("requests/sec", r.Stimulus.RequestRate))
	}
	if s.AchievedRequestRate > 0 {
		o.set("achieved_request_rate", avgOnly("requests/sec", s.AchievedRequestRate))
	}
	if s.MeanConcurrency > 0 {
		o.set("mean_concurrency", avgOnly("count", s.MeanConcurrency))
	}
	for _, m := range []requestMetric{mScheduleLag, mTTFTFromSchedule, mLatencyFromSchedule, mChunkGap} {
		setDist(o, m, s)
	}
	if r.TelemetryBlock != nil {
		o.set("telemetry", r.TelemetryBlock)
	}
	if c := s.Client; c != nil {
		reasons := []any{}
		for _, why := range c.Reasons {
			reasons = append(reasons, why)
		}
		o.set("client_limited", c.Limited).set("client_reasons", reasons)
	}
	return o
}

// errorList renders the error groups most frequent first, as metrics
// ordered them.
func errorList(errs []metrics.ErrorCount) []any {
	out := []any{}
	for _, e := range errs {
		out = append(out, (&object{}).
			set("class", string(e.Class)).
			set("status", e.Status).
			set("message", e.Message).
			set("count", e.Count))
	}
	return out
}
