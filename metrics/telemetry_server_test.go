package metrics

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// vllmGauges are three scrapes (1, 2, 3 s) of a vLLM server with two
// engines (data parallel), plus the deprecated gpu_cache_usage_perc alias
// with other values, which must be ignored.
func vllmGauges(host string) []TelemetrySample {
	var out []TelemetrySample
	rows := []struct{ running0, running1, waiting0, waiting1, kv0, kv1 float64 }{
		{2, 1, 0, 1, 0.5, 0.8},
		{4, 1, 3, 0, 0.6, 0.2},
		{6, 1, 2, 2, 0.7, 0.1},
	}
	for i, r := range rows {
		at := float64(i + 1)
		for _, e := range []struct {
			engine               string
			running, waiting, kv float64
		}{{"0", r.running0, r.waiting0, r.kv0}, {"1", r.running1, r.waiting1, r.kv1}} {
			l := []string{"engine", e.engine, "model_name", "m"}
			out = append(out,
				tsample(at, host, "vllm:num_requests_running", e.running, l...),
				tsample(at, host, "vllm:num_requests_waiting", e.waiting, l...),
				tsample(at, host, "vllm:kv_cache_usage_perc", e.kv, l...),
				tsample(at, host, "vllm:gpu_cache_usage_perc", 0.99, l...))
		}
	}
	return out
}

// vllmCounters scrape hits, queries and preemptions at 0, 5 and 10 s, old
// and new names with the same values.
func vllmCounters(host string) []TelemetrySample {
	var out []TelemetrySample
	for i, v := range [][3]float64{{100, 1000, 0}, {200, 1500, 4}, {600, 2000, 10}} {
		at := float64(5 * i)
		l := []string{"engine", "0", "model_name", "m"}
		out = append(out,
			tsample(at, host, "vllm:prefix_cache_hits_total", v[0], l...),
			tsample(at, host, "vllm:prefix_cache_queries_total", v[1], l...),
			tsample(at, host, "vllm:gpu_prefix_cache_hits_total", v[0], l...),
			tsample(at, host, "vllm:gpu_prefix_cache_queries_total", v[1], l...),
			tsample(at, host, "vllm:num_preemptions_total", v[2], l...),
			tsample(at, host, "vllm:num_preemptions_created", 1.7e9, l...))
	}
	return out
}

// TestServerGauges: running and waiting are summed across engines per
// scrape (3, 5, 7 and 1, 3, 4), KV-cache use is the fuller engine's (80,
// 60, 70 %). The counters over 2.5 s to 7.5 s: hits 150 → 400 (250),
// queries 1250 → 1750 (500), so a 0.5 hit rate; preemptions 2 → 7 (5).
func TestServerGauges(t *testing.T) {
	samples := append(vllmGauges("v:8000"), vllmCounters("v:8000")...)
	s := ReduceTelemetry(samples, TelemetryWindow{Start: sec(1), End: sec(7.5)}).Server
	if len(s.Engines) != 1 || s.Engines[0] != "vllm" {
		t.Errorf("engines %v, want [vllm]", s.Engines)
	}
	check := func(what string, d *Distribution, avg, max float64) {
		t.Helper()
		if d == nil || d.Count != 3 || math.Abs(d.Avg-avg) > 1e-12 || d.Max != max {
			t.Errorf("%s = %+v, want 3 scrapes, avg %v, max %v", what, d, avg, max)
		}
	}
	check("running", s.Running, 5, 7)
	check("waiting", s.Waiting, 8.0/3, 4)
	check("kv cache", s.KVCacheUsage, 70, 80)
	s = ReduceTelemetry(samples, TelemetryWindow{Start: sec(2.5), End: sec(7.5)}).Server
	within(t, "prefix-cache hit rate", s.PrefixCacheHitRate, 0.5, 1e-12)
	within(t, "preemptions", s.Preemptions, 5, 1e-12)

	// Hits without queries (llmbench's simulator) give no rate.
	var hitsOnly []TelemetrySample
	for _, x := range samples {
		if !strings.Contains(x.Name, "queries") {
			hitsOnly = append(hitsOnly, x)
		}
	}
	s = ReduceTelemetry(hitsOnly, TelemetryWindow{Start: sec(2.5), End: sec(7.5)}).Server
	if s.PrefixCacheHitRate.OK || !strings.Contains(s.PrefixCacheHitRate.Why, "hits but no queries") {
		t.Errorf("hit rate without queries %+v", s.PrefixCacheHitRate)
	}
}

// TestServerEngines: each engine's names, and what it lacks.
func TestServerEngines(t *testing.T) {
	w := TelemetryWindow{Start: sec(1), End: sec(9)}
	at := func(s float64, host, name string, v float64, labels ...string) TelemetrySample {
		return tsample(s, host, name, v, labels...)
	}
	sglang := []TelemetrySample{
		at(0, "s:30000", "sglang:num_running_reqs", 8), at(5, "s:30000", "sglang:num_running_reqs", 10),
		at(0, "s:30000", "sglang:num_queue_reqs", 0), at(5, "s:30000", "sglang:num_queue_reqs", 2),
		at(5, "s:30000", "sglang:token_usage", 0.42),
		at(0, "s:30000", "sglang:cached_tokens_total", 0), at(10, "s:30000", "sglang:cached_tokens_total", 300),
		at(0, "s:30000", "sglang:prompt_tokens_total", 0), at(10, "s:30000", "sglang:prompt_tokens_total", 1000),
		at(0, "s:30000", "sglang:num_retracted_requests_total", 0), at(10, "s:30000", "sglang:num_retracted_requests_total", 10),
	}
	s := ReduceTelemetry(sglang, w).Server
	// One scrape (5 s) inside the window; hits 240 of 800 queries over 8 s.
	if s.Engines[0] != "sglang" || s.Running.Avg != 10 || s.Waiting.Avg != 2 || math.Abs(s.KVCacheUsage.Avg-42) > 1e-12 {
		t.Errorf("sglang: %+v", s)
	}
	within(t, "sglang hit rate", s.PrefixCacheHitRate, 0.3, 1e-12)
	within(t, "sglang retractions", s.Preemptions, 8, 1e-12)

	tgi := []TelemetrySample{at(5, "t:80", "tgi_batch_current_size", 4), at(5, "t:80", "tgi_queue_size", 1)}
	s = ReduceTelemetry(tgi, w).Server
	if s.Engines[0] != "tgi" || s.Running.Avg != 4 || s.Waiting.Avg != 1 || s.KVCacheUsage != nil {
		t.Errorf("tgi: %+v", s)
	}
	if s.PrefixCacheHitRate.OK || !strings.Contains(s.PrefixCacheHitRate.Why, "no prefix-cache counters") ||
		s.Preemptions.OK || !strings.Contains(s.Preemptions.Why, "(tgi) exports no preemption counter") {
		t.Errorf("tgi: hit rate %+v, preemptions %+v", s.PrefixCacheHitRate, s.Preemptions)
	}

	trtllm := []TelemetrySample{
		at(5, "r:8000", "trtllm_num_requests_running", 3), at(5, "r:8000", "trtllm_kv_cache_utilization", 0.25),
		at(0, "r:8000", "trtllm_kv_cache_reused_blocks_total", 0), at(10, "r:8000", "trtllm_kv_cache_reused_blocks_total", 30),
		at(0, "r:8000", "trtllm_kv_cache_missed_blocks_total", 0), at(10, "r:8000", "trtllm_kv_cache_missed_blocks_total", 10),
	}
	s = ReduceTelemetry(trtllm, w).Server
	// Hits 24 and misses 8 over the window: 24 / (24 + 8).
	within(t, "trtllm hit rate", s.PrefixCacheHitRate, 0.75, 1e-12)
	if s.Engines[0] != "trtllm" || s.Running.Avg != 3 || s.KVCacheUsage.Avg != 25 || s.Waiting != nil {
		t.Errorf("trtllm: %+v", s)
	}

	triton := []TelemetrySample{
		at(5, "x:8002", "nv_trt_llm_request_metrics", 6, "request_type", "active", "model", "tensorrt_llm"),
		at(5, "x:8002", "nv_trt_llm_request_metrics", 5, "request_type", "scheduled", "model", "tensorrt_llm"),
		at(5, "x:8002", "nv_trt_llm_request_metrics", 64, "request_type", "max", "model", "tensorrt_llm"),
		at(5, "x:8002", "nv_trt_llm_request_metrics", 2, "request_type", "waiting", "model", "tensorrt_llm"),
		at(5, "x:8002", "nv_trt_llm_kv_cache_block_metrics", 0.5, "kv_cache_block_type", "fraction", "model", "tensorrt_llm"),
		at(5, "x:8002", "nv_trt_llm_kv_cache_block_metrics", 6240, "kv_cache_block_type", "max", "model", "tensorrt_llm"),
	}
	s = ReduceTelemetry(triton, w).Server
	if s.Engines[0] != "triton-trtllm" || s.Running.Avg != 6 || s.Waiting.Avg != 2 || s.KVCacheUsage.Avg != 50 {
		t.Errorf("triton: %+v", s)
	}
}

// ttftHistogram is vllm:time_to_first_token_seconds of one label set at
// scrape s: cumulative counts at 0.1, 0.2 and +Inf, sum and count.
func ttftHistogram(s float64, engine string, le01, le02, inf, sum float64) []TelemetrySample {
	f := "vllm:time_to_first_token_seconds"
	l := []string{"engine", engine, "model_name", "m"}
	return []TelemetrySample{
		tsample(s, "v:8000", f+"_bucket", le01, append(l, "le", "0.1")...),
		tsample(s, "v:8000", f+"_bucket", le02, append(l, "le", "0.2")...),
		tsample(s, "v:8000", f+"_bucket", inf, append(l, "le", "+Inf")...),
		tsample(s, "v:8000", f+"_sum", sum, l...),
		tsample(s, "v:8000", f+"_count", inf, l...),
	}
}

// TestServerLatency: scrapes at 0, 5 and 10 s around the window 1..9 s,
// so the delta runs from the 0 s scrape to the 10 s one. Engine 0 goes
// from (5, 8, 10; sum 1.5) to (15, 38, 50; sum 9.5): +10, +30, +40, sum 8.
// Engine 1 appears at 5 s (created on first use, so 0 at 0 s) and ends at
// (0, 0, 10; sum 6). Summed: 10 ≤ 0.1 s, 30 ≤ 0.2 s, 50 in all, sum 14 s:
// mean 14/50 = 0.28 s; p50 rank 25 in (0.1, 0.2]: 0.1 + 0.1·15/20 = 0.175
// s; p90 rank 45 and p99 rank 49.5 only +Inf reaches: 0.2 s. The client
// saw 310 ms on average, 30 ms more than the server.
func TestServerLatency(t *testing.T) {
	var samples []TelemetrySample
	samples = append(samples, ttftHistogram(0, "0", 5, 8, 10, 1.5)...)
	samples = append(samples, ttftHistogram(5, "0", 10, 20, 30, 5)...)
	samples = append(samples, ttftHistogram(5, "1", 0, 0, 4, 2)...)
	samples = append(samples, ttftHistogram(10, "0", 15, 38, 50, 9.5)...)
	samples = append(samples, ttftHistogram(10, "1", 0, 0, 10, 6)...)
	samples = append(samples, tsample(0, "v:8000", "vllm:num_requests_running", 0))
	ts := ReduceTelemetry(samples, TelemetryWindow{Start: sec(1), End: sec(9)})
	l := ts.Server.Latency(LatencyTTFT)
	if l == nil || !l.OK {
		t.Fatalf("ttft %+v", l)
	}
	if l.Count != 50 || l.Families[0] != "vllm:time_to_first_token_seconds" {
		t.Errorf("count %v from %v, want 50 from vllm:time_to_first_token_seconds", l.Count, l.Families)
	}
	for what, c := range map[string][2]float64{"mean": {l.Mean, 0.28e9}, "p50": {l.P50, 0.175e9},
		"p90": {l.P90, 0.2e9}, "p99": {l.P99, 0.2e9}, "p10": {l.Quantile(0.1), 0.05e9}} {
		if math.Abs(c[0]-c[1]) > 1e-9*c[1] {
			t.Errorf("ttft %s = %v ns, want %v", what, c[0], c[1])
		}
	}
	if ts.Server.Latency(LatencyITL) != nil {
		t.Error("an ITL latency without an ITL histogram")
	}
	client := &Summary{TimeToFirstToken: NewDistribution([]float64{300e6, 320e6}), TimeToSecondToken: NewDistribution([]float64{5e6, 6e6})}
	gap, err := CompareServerLatency(LatencyTTFT, client, &ts)
	if err != nil || !gap.Difference.OK || math.Abs(gap.Difference.Value-30e6) > 1e-3 || gap.Client != 310e6 || math.Abs(gap.Server-280e6) > 1e-3 {
		t.Errorf("CompareServerLatency = %+v, %v; want 310 ms − 280 ms = 30 ms", gap, err)
	}
	if _, err := CompareServerLatency(LatencyRequestLatency, client, &ts); !errors.Is(err, ErrNotMeasured) {
		t.Errorf("request latency without either side: %v, want ErrNotMeasured", err)
	}
	if _, err := CompareServerLatency(LatencyQueueTime, client, &ts); err == nil {
		t.Error("queue time has no client counterpart, want an error")
	}

	// The window reaches past the last scrape: the delta is unknown.
	ts = ReduceTelemetry(samples, TelemetryWindow{Start: sec(1), End: sec(11)})
	if l := ts.Server.Latency(LatencyTTFT); l == nil || l.OK || !strings.Contains(l.Why, "no scrape of v:8000 at or after the point's end") {
		t.Errorf("unbracketed ttft %+v", l)
	}
}

// TestServerLatencyResetAndFallback: a label set whose count went back
// (server restart) is left out with a note; an old vLLM's
// time_per_output_token_seconds stands in for inter_token_latency_seconds.
func TestServerLatencyResetAndFallback(t *testing.T) {
	var samples []TelemetrySample
	samples = append(samples, ttftHistogram(0, "0", 5, 8, 10, 1.5)...)
	samples = append(samples, ttftHistogram(10, "0", 1, 1, 2, 0.1)...)
	samples = append(samples, ttftHistogram(0, "1", 0, 0, 0, 0)...)
	samples = append(samples, ttftHistogram(10, "1", 1, 3, 4, 0.6)...)
	for i, v := range []float64{0, 8} {
		l := []string{"model_name", "m"}
		f := "vllm:time_per_output_token_seconds"
		samples = append(samples,
			tsample(float64(10*i), "v:8000", f+"_bucket", v/2, append(l, "le", "0.05")...),
			tsample(float64(10*i), "v:8000", f+"_bucket", v, append(l, "le", "+Inf")...),
			tsample(float64(10*i), "v:8000", f+"_sum", v*0.04, l...),
			tsample(float64(10*i), "v:8000", f+"_count", v, l...))
	}
	ts := ReduceTelemetry(samples, TelemetryWindow{Start: sec(1), End: sec(9)})
	l := ts.Server.Latency(LatencyTTFT)
	if l == nil || !l.OK || l.Count != 4 || math.Abs(l.Mean-0.15e9) > 1 {
		t.Errorf("ttft %+v, want engine 1 only: 4 observations, mean 0.6/4 = 150 ms", l)
	}
	if !containsNote(ts.Notes, "went back during the point (server restart?)") {
		t.Errorf("notes %q do not mention the reset", ts.Notes)
	}
	itl := ts.Server.Latency(LatencyITL)
	if itl == nil || !itl.OK || itl.Families[0] != "vllm:time_per_output_token_seconds" || math.Abs(itl.Mean-40e6) > 1 {
		t.Errorf("itl %+v, want 8 observations of 40 ms from time_per_output_token_seconds", itl)
	}
}
