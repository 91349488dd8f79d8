package views

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/llmbench/llmbench/metrics"
)

// Block is the `views` block of a point in summary.json: the point's
// requests under every tool's definitions, each view keyed and in units as
// that tool writes its own results file (docs/summary-json.md#views), so a
// program can compare a value with the tool's own output key for key.
// Nil when the point measured nothing.
func Block(s *metrics.Summary) *Object {
	if s == nil || s.Views == nil {
		return nil
	}
	v := s.Views
	return obj(
		GenAIPerf, genAIPerfJSON(s),
		VLLM, vllmJSON(&v.VLLM),
		GuideLLM, guideLLMJSON(&v.GuideLLM),
		LLMPerf, llmperfJSON(&v.LLMPerf),
		AIPerf, aiperfJSON(&v.AIPerf),
	)
}

// Object is a JSON object whose keys keep the order they were set in, as
// the tools' own files order them.
type Object struct {
	keys   []string
	values []any
}

// obj builds an Object from alternating keys and values.
func obj(kv ...any) *Object {
	o := &Object{}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Set appends a key (values that are NaN or infinite become null).
func (o *Object) Set(key string, v any) *Object {
	if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		v = nil
	}
	o.keys, o.values = append(o.keys, key), append(o.values, v)
	return o
}

// Get returns a key's value, nil when it is absent.
func (o *Object) Get(key string) any {
	for i, k := range o.keys {
		if k == key {
			return o.values[i]
		}
	}
	return nil
}

// MarshalJSON writes the keys in order.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.values[i])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// statsJSON is a GenAI-Perf / AIPerf metric record: its unit and numpy
// statistics, in the display unit.
func statsJSON(unit string, scale float64, d *metrics.Distribution) any {
	if d == nil {
		return nil
	}
	d = d.Scaled(scale)
	return obj("unit", unit, "avg", d.Avg, "min", d.Min, "max", d.Max, "std", d.Std,
		"p1", d.P1, "p5", d.P5, "p10", d.P10, "p25", d.P25, "p50", d.P50,
		"p75", d.P75, "p90", d.P90, "p95", d.P95, "p99", d.P99, "count", d.Count)
}

func avgJSON(unit string, v float64) any { return obj("unit", unit, "avg", v) }

// genAIPerfMetrics are the metrics of GenAI-Perf's
// profile_export_genai_perf.json in its order, each keyed by its GenAI-Perf
// name (Metric.GenAIPerfName) with GenAI-Perf's unit name; AIPerf's metric
// records use the same tags and units, and its console table the same
// order under its own headers.
var genAIPerfMetrics = []struct {
	metric *metrics.Metric
	unit   string
	// aiperfHeader is the metric's row header in AIPerf's console table.
	aiperfHeader string
}{
	{metrics.TTFT, "ms", "Time to First Token"}, {metrics.TTST, "ms", "Time to Second Token"},
	{metrics.RequestLatency, "ms", "Request Latency"}, {metrics.ITL, "ms", "Inter Token Latency"},
	{metrics.OutputTokenThroughputPerUser, "tokens/sec/user", "Output Token Throughput Per User"},
	{metrics.OSL, "tokens", "Output Sequence Length"}, {metrics.ISL, "tokens", "Input Sequence Length"},
	{metrics.OutputTokenThroughput, "tokens/sec", "Output Token Throughput"},
	{metrics.RequestThroughput, "requests/sec", "Request Throughput"},
}

// genAIPerfRecords are s's genAIPerfMetrics as GenAI-Perf writes them:
// distributions with their statistics, run-level values avg-only.
func genAIPerfRecords(s *metrics.Summary) *Object {
	o := &Object{}
	for _, g := range genAIPerfMetrics {
		m := g.metric
		if m.Kind == metrics.PerRequest {
			o.Set(m.GenAIPerfName(), statsJSON(g.unit, m.Scale(), m.Distribution(s)))
			continue
		}
		v, _ := m.Value(s)
		o.Set(m.GenAIPerfName(), avgJSON(g.unit, v*m.Scale()))
	}
	return o
}

// genAIPerfJSON is GenAI-Perf's metrics, named as profile_export_genai_perf.json names them.
func genAIPerfJSON(s *metrics.Summary) *Object {
	o := genAIPerfRecords(s).Set("request_count", avgJSON("count", float64(s.RequestCount)))
	if s.RequestGoodput != nil {
		o.Set("request_goodput", avgJSON("requests/sec", *s.RequestGoodput))
	}
	return o
}

// aiperfJSON is AIPerf's metric records by tag, in display units: the
// GenAI-Perf ones under AIPerf's definitions, then AIPerf's own.
func aiperfJSON(v *metrics.AIPerfView) *Object {
	o := genAIPerfRecords(v.Summary()).Set("request_count", avgJSON("requests", float64(v.RequestCount))).
		Set("error_request_count", avgJSON("requests", float64(v.ErrorRequestCount))).
		Set("benchmark_duration", avgJSON("sec", float64(v.BenchmarkDuration)/1e9))
	if v.RequestGoodput != nil {
		o.Set("goodput", avgJSON("requests/sec", *v.RequestGoodput))
	}
	return o
}

// vllmJSON is the result dict `vllm bench serve --save-result` writes.
func vllmJSON(v *metrics.VLLMView) *Object {
	o := obj("duration", v.Duration, "completed", v.Completed, "failed", v.Failed,
		"total_input_tokens", v.TotalInput, "total_output_tokens", v.TotalOutput,
		"request_throughput", v.RequestThroughput, "output_throughput", v.OutputThroughput,
		"total_token_throughput", v.TotalTokenThroughput,
		"max_output_tokens_per_s", v.MaxOutputTokensPerS, "max_concurrent_requests", v.MaxConcurrentRequests)
	for _, m := range []struct {
		name string
		st   metrics.VLLMStats
	}{{"ttft", v.TTFT}, {"tpot", v.TPOT}, {"itl", v.ITL}, {"e2el", v.E2EL}} {
		st := m.st
		o.Set("mean_"+m.name+"_ms", st.Mean).Set("median_"+m.name+"_ms", st.Median).Set("std_"+m.name+"_ms", st.Std)
		for _, p := range []struct {
			name string
			v    float64
		}{{"p25", st.P25}, {"p50", st.P50}, {"p75", st.P75}, {"p90", st.P90}, {"p95", st.P95}, {"p99", st.P99}} {
			o.Set(p.name+"_"+m.name+"_ms", p.v)
		}
	}
	return o
}

// guideLLMJSON is the metrics of a GuideLLM benchmark: each distribution
// under the request status it was computed over, as in GuideLLM's report.
func guideLLMJSON(v *metrics.GuideLLMView) *Object {
	return obj(
		"request_totals", obj("successful", v.Successful, "incomplete", v.Incomplete, "errored", v.Errored, "total", v.Total),
		"duration", v.Duration,
		"request_latency", obj("successful", guideDistJSON(v.RequestLatency)),
		"time_to_first_token_ms", obj("successful", guideDistJSON(v.TTFT)),
		"time_to_first_output_token_ms", obj("successful", guideDistJSON(v.TTFOT)),
		"inter_token_latency_ms", obj("successful", guideDistJSON(v.ITL)),
		"time_per_output_token_ms", obj("successful", guideDistJSON(v.TPOT)),
		"request_concurrency", obj("total", guideDistJSON(v.RequestConcurrency)),
		"requests_per_second", obj("total", obj("mean", v.RequestsPerSecond)),
		"prompt_tokens_per_second", obj("total", obj("mean", v.PromptTokensPerSecond)),
		"output_tokens_per_second", obj("total", obj("mean", v.OutputTokensPerSecond)),
		"tokens_per_second", obj("total", obj("mean", v.TokensPerSecond)),
	)
}

func guideDistJSON(d metrics.GuideLLMDist) *Object {
	return obj("mean", d.Mean, "median", d.Median, "mode", d.Mode, "variance", d.Variance, "std_dev", d.StdDev,
		"min", d.Min, "max", d.Max, "count", d.Count, "total_sum", d.TotalSum,
		"percentiles", obj("p001", d.P001, "p01", d.P01, "p05", d.P05, "p10", d.P10, "p25", d.P25, "p50", d.P50,
			"p75", d.P75, "p90", d.P90, "p95", d.P95, "p99", d.P99, "p999", d.P999))
}

// llmperfJSON is the "results" of LLMPerf's summary file.
func llmperfJSON(v *metrics.LLMPerfView) *Object {
	o := &Object{}
	for _, m := range []struct {
		key string
		st  metrics.LLMPerfStats
	}{
		{"inter_token_latency_s", v.InterTokenLatency}, {"ttft_s", v.TTFT}, {"end_to_end_latency_s", v.EndToEndLatency},
		{"request_output_throughput_token_per_s", v.RequestOutputThroughput},
		{"number_input_tokens", v.NumberInputTokens}, {"number_output_tokens", v.NumberOutputTokens},
	} {
		st := m.st
		var std any
		if st.Stddev != nil {
			std = *st.Stddev
		}
		stats := obj("quantiles", obj("p25", st.P25, "p50", st.P50, "p75", st.P75, "p90", st.P90, "p95", st.P95, "p99", st.P99),
			"mean", st.Mean, "min", st.Min, "max", st.Max, "stddev", std)
		if st.Count == 0 {
			stats = nil
		}
		o.Set(m.key, stats)
	}
	return o.Set("num_requests_started", v.NumRequestsStarted).Set("error_rate", v.ErrorRate).
		Set("number_errors", v.NumErrors).Set("mean_output_throughput_token_per_s", v.MeanOutputThroughput).
		Set("num_completed_requests", v.NumCompletedRequests).Set("num_completed_requests_per_min", v.CompletedPerMinute)
}
