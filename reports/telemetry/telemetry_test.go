package telemetry

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/transport/telemetry"
)

// gpuSamples are one GPU drawing 400 W, its energy counter rising at that
// rate, scraped every second from 0 to 10 s.
func gpuSamples() []metrics.TelemetrySample {
	labels := []metrics.Label{{Name: "UUID", Value: "GPU-1"}, {Name: "gpu", Value: "0"}, {Name: "modelName", Value: "H100"}}
	var out []metrics.TelemetrySample
	for s := int64(0); s <= 10; s++ {
		t := s * 1e9
		out = append(out,
			metrics.TelemetrySample{Time: t, Source: "h:9400", Name: "DCGM_FI_DEV_POWER_USAGE", Labels: labels, Value: 400},
			metrics.TelemetrySample{Time: t, Source: "h:9400", Name: "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", Labels: labels, Value: float64(s) * 400e3})
	}
	return out
}

// The block and the console say what was measured, in their units: 2 s
// at 400 W is 800 J, over 1600 tokens 0.5 J/token; an unknown value is
// null with its reason.
func TestBlockAndConsole(t *testing.T) {
	w := metrics.TelemetryWindow{Start: 3e9, End: 5e9, OutputTokens: 1600, CostPerHour: 3.6}
	pt := &runtime.PointTelemetry{Samples: gpuSamples(), Summary: metrics.ReduceTelemetry(gpuSamples(), w), Warnings: []string{"telemetry: x dropped"}}
	b := BlockOf(pt, &metrics.Summary{})
	if b.EnergyJ.Value == nil || *b.EnergyJ.Value != 800 || *b.EnergyPerToken.Value != 0.5 || *b.AveragePowerW.Value != 400 {
		t.Errorf("block energy %+v, J/token %+v, power %+v", b.EnergyJ, b.EnergyPerToken, b.AveragePowerW)
	}
	// 1600 tokens in 2 s is 800 tokens/s: 3.6 / (800 × 3600) × 1e6 = 1.25 per million.
	if b.CostPerMTok.Value == nil || *b.CostPerMTok.Value != 1.25 || b.Currency != "EUR" {
		t.Errorf("cost %+v %s", b.CostPerMTok, b.Currency)
	}
	if b.Server.PrefixCacheHitRate.Value != nil || b.Server.PrefixCacheHitRate.Why == "" {
		t.Errorf("a DCGM-only source has no prefix-cache hit rate, and says why: %+v", b.Server.PrefixCacheHitRate)
	}
	js, err := json.Marshal(b)
	if err != nil || !strings.Contains(string(js), `"prefix_cache_hit_rate":{"value":null,"why":`) {
		t.Errorf("JSON (%v): %s", err, js)
	}
	var con bytes.Buffer
	Console(pt, &metrics.Summary{})(&con)
	for _, want := range []string{"GPU: 1 (gpu0 H100), 400.0 W avg", "800.0 J over the point", "0.500 J/token (2.00 tokens/J)",
		"1.25 EUR per million output tokens", "warning: telemetry: x dropped"} {
		if !strings.Contains(con.String(), want) {
			t.Errorf("console lacks %q:\n%s", want, con.String())
		}
	}
	if Console(nil, nil)(&con); BlockOf(nil, nil) != nil {
		t.Error("no telemetry must give no block")
	}
}

// A server mean above the client's is never printed as a negative
// "server front end + network + client": the console and the block say the windows differ.
// By hand: client TTFT mean 50 ms, server 60 ms; request latency 1000
// against 900 ms is a real +100 ms.
func TestServerLongerThanClientSaysWindowsDiffer(t *testing.T) {
	pt := &runtime.PointTelemetry{Summary: metrics.TelemetrySummary{Server: metrics.ServerTelemetry{Engines: []string{"vllm"},
		Latencies: []metrics.ServerLatency{
			{Metric: metrics.LatencyTTFT, OK: true, Count: 3, Mean: 60e6},
			{Metric: metrics.LatencyRequestLatency, OK: true, Count: 1, Mean: 900e6},
		}}}}
	client := &metrics.Summary{TimeToFirstToken: metrics.NewDistribution([]float64{40e6, 50e6, 60e6}),
		TimeToSecondToken: metrics.NewDistribution([]float64{5e6}), RequestLatency: metrics.NewDistribution([]float64{1000e6})}
	var con bytes.Buffer
	Console(pt, client)(&con)
	want := "Server latency: TTFT 60.00 ms mean (client mean 50.00 ms: n/a (server window differs from client's)), " +
		"request latency 900.00 ms mean (client mean 1000.00 ms: +100.00 ms server front end + network + client)"
	if !strings.Contains(con.String(), want) || strings.Contains(con.String(), "-10.00") {
		t.Errorf("console:\n%s\nwant %q", con.String(), want)
	}
	// Counts that differ are said: the means are over other requests.
	pt.Summary.Server.Latencies[1].Count = 2
	con.Reset()
	Console(pt, client)(&con)
	if !strings.Contains(con.String(), "(client mean 1000.00 ms: +100.00 ms server front end + network + client; the server counted 2 requests, the client 1)") {
		t.Errorf("console with counts that differ:\n%s", con.String())
	}
	b := BlockOf(pt, client)
	if g := b.ServerVsClient[1]; g.ServerCount != 2 || g.ClientCount != 1 {
		t.Errorf("counts %+v", g)
	}
	if len(b.ServerVsClient) != 2 || b.ServerVsClient[0].DifferenceMS != nil || !strings.Contains(b.ServerVsClient[0].Why, "server window differs") ||
		b.ServerVsClient[1].DifferenceMS == nil || *b.ServerVsClient[1].DifferenceMS != 100 {
		js, _ := json.Marshal(b.ServerVsClient)
		t.Errorf("server_vs_client: %s", js)
	}
}

// The simulator's made-up figures say "simulated" on every console line
// and in every part of the block; a simulated source left out beside
// real exporters is a warning and marked in the sources.
func TestSimulatedIsLabelled(t *testing.T) {
	page := gpuSamples()
	for s := int64(0); s <= 10; s++ {
		page = append(page, metrics.TelemetrySample{Time: s * 1e9, Source: "h:9400", Name: metrics.SimulatedMarker, Value: 1},
			metrics.TelemetrySample{Time: s * 1e9, Source: "h:9400", Name: "vllm:num_requests_running", Value: 2})
	}
	w := metrics.TelemetryWindow{Start: 3e9, End: 5e9, OutputTokens: 1600}
	pt := &runtime.PointTelemetry{Samples: page, Summary: metrics.ReduceTelemetry(page, w),
		Reports: []telemetry.Report{{Source: "h:9400", URL: "http://h:9400/metrics"}}}
	var con bytes.Buffer
	Console(pt, &metrics.Summary{})(&con)
	for _, want := range []string{"GPU (simulated): 1 (gpu0 (simulated) H100), 400.0 W avg", "Server (vllm, simulated): running 2.0"} {
		if !strings.Contains(con.String(), want) {
			t.Errorf("console lacks %q:\n%s", want, con.String())
		}
	}
	b := BlockOf(pt, &metrics.Summary{})
	if !b.Simulated || !b.GPUs[0].Simulated || !b.Server.Simulated || !b.Sources[0].Simulated || b.Sources[0].LeftOut {
		js, _ := json.Marshal(b)
		t.Errorf("block: %s", js)
	}

	real := metrics.TelemetrySample{Time: 4e9, Source: "real:9400", Name: "DCGM_FI_DEV_POWER_USAGE", Value: 100,
		Labels: []metrics.Label{{Name: "UUID", Value: "GPU-R"}, {Name: "gpu", Value: "0"}}}
	page = append(page, real)
	pt = &runtime.PointTelemetry{Samples: page, Summary: metrics.ReduceTelemetry(page, w),
		Reports: []telemetry.Report{{Source: "h:9400"}, {Source: "real:9400"}}}
	con.Reset()
	Console(pt, &metrics.Summary{})(&con)
	if !strings.Contains(con.String(), "GPU: 1 (gpu0), 100.0 W avg") || strings.Contains(con.String(), "Server (") ||
		!strings.Contains(con.String(), "warning: h:9400 serves llmbench's simulated metrics") {
		t.Errorf("console beside a real exporter:\n%s", con.String())
	}
	b = BlockOf(pt, &metrics.Summary{})
	if b.Simulated || len(b.GPUs) != 1 || b.GPUs[0].Simulated || !b.Sources[0].Simulated || !b.Sources[0].LeftOut || b.Sources[1].Simulated ||
		len(b.Warnings) != 1 {
		js, _ := json.Marshal(b)
		t.Errorf("block beside a real exporter: %s", js)
	}
}

// vllmLatencies are a vLLM point's server latencies as ReduceTelemetry
// gives them, from hand-made histograms with vLLM 0.32's buckets: 30 TTFTs
// with mean 45 ms, 27 ≤ 0.1 s and 3 in (0.1, 0.25] (p99 in (100, 250]
// ms, interpolated 0.235 s, above every client TTFT); 30 request latencies
// with mean 1360 ms, all in (1, 1.5] s; 30 queue times with mean 0.02 ms,
// all ≤ 0.3 s (interpolated p50 150 ms, p99 297 ms).
func vllmLatencies(t *testing.T) metrics.TelemetrySummary {
	t.Helper()
	hist := func(at int64, family string, bounds []string, counts []float64, sum float64) []metrics.TelemetrySample {
		var out []metrics.TelemetrySample
		labels := []metrics.Label{{Name: "engine", Value: "0"}, {Name: "model_name", Value: "tiny"}}
		for i, b := range bounds {
			l := append(append([]metrics.Label{}, labels...), metrics.Label{Name: "le", Value: b})
			out = append(out, metrics.TelemetrySample{Time: at, Source: "v:8000", Name: family + "_bucket", Labels: l, Value: counts[i]})
		}
		return append(out, metrics.TelemetrySample{Time: at, Source: "v:8000", Name: family + "_sum", Labels: labels, Value: sum},
			metrics.TelemetrySample{Time: at, Source: "v:8000", Name: family + "_count", Labels: labels, Value: counts[len(counts)-1]})
	}
	zero := func(n int) []float64 { return make([]float64, n) }
	ttftB := []string{"0.02", "0.04", "0.06", "0.08", "0.1", "0.25", "0.5", "+Inf"}
	e2eB := []string{"0.5", "1", "1.5", "2.5", "+Inf"}
	queueB := []string{"0.3", "0.5", "0.8", "+Inf"}
	var s []metrics.TelemetrySample
	s = append(s, hist(0, "vllm:time_to_first_token_seconds", ttftB, zero(8), 0)...)
	s = append(s, hist(10e9, "vllm:time_to_first_token_seconds", ttftB, []float64{0, 10, 20, 25, 27, 30, 30, 30}, 30*0.045)...)
	s = append(s, hist(0, "vllm:e2e_request_latency_seconds", e2eB, zero(5), 0)...)
	s = append(s, hist(10e9, "vllm:e2e_request_latency_seconds", e2eB, []float64{0, 0, 30, 30, 30}, 30*1.36)...)
	s = append(s, hist(0, "vllm:request_queue_time_seconds", queueB, zero(4), 0)...)
	s = append(s, hist(10e9, "vllm:request_queue_time_seconds", queueB, []float64{30, 30, 30, 30}, 30*0.02e-3)...)
	s = append(s, metrics.TelemetrySample{Time: 0, Source: "v:8000", Name: "vllm:num_requests_running"})
	// The token counters and the finish reasons: 30 requests of 210 prompt
	// and 64 generated tokens, 28 stopped at max_tokens and 2 by the model.
	labels := []metrics.Label{{Name: "engine", Value: "0"}, {Name: "model_name", Value: "tiny"}}
	for _, c := range []struct {
		name, reason string
		end          float64
	}{{"vllm:prompt_tokens_total", "", 6300}, {"vllm:generation_tokens_total", "", 1920}, {"vllm:prompt_tokens_cached_total", "", 0},
		{"vllm:request_success_total", "stop", 2}, {"vllm:request_success_total", "length", 28}, {"vllm:request_success_total", "abort", 0}} {
		l := labels
		if c.reason != "" {
			l = []metrics.Label{labels[0], {Name: "finished_reason", Value: c.reason}, labels[1]}
		}
		s = append(s, metrics.TelemetrySample{Time: 0, Source: "v:8000", Name: c.name, Labels: l},
			metrics.TelemetrySample{Time: 10e9, Source: "v:8000", Name: c.name, Labels: l, Value: c.end})
	}
	return metrics.ReduceTelemetry(s, metrics.TelemetryWindow{Start: 1e9, End: 9e9})
}

// Server quantiles are said as the bucket they fall in, never as a
// measured figure: the console prints "p99 in (100, 250] ms" and
// "p99 ≤ 300 ms" (before: no bucket, and the JSON's p99_ms 235 and
// queue p50_ms 150 read as measured); the JSON block gives each quantile's
// bucket and labels its interpolation. Means are exact.
func TestServerQuantilesAreBuckets(t *testing.T) {
	pt := &runtime.PointTelemetry{Summary: vllmLatencies(t)}
	client := &metrics.Summary{TimeToFirstToken: metrics.NewDistribution(fill(30, 88e6)), TimeToSecondToken: metrics.NewDistribution(fill(30, 20e6)),
		RequestLatency: metrics.NewDistribution(fill(30, 1411e6))}
	var con bytes.Buffer
	Console(pt, client)(&con)
	want := "Server latency: TTFT 45.00 ms mean, p99 in (100, 250] ms (client mean 88.00 ms: +43.00 ms server front end + network + client), " +
		"request latency 1360.00 ms mean, p99 in (1000, 1500] ms (client mean 1411.00 ms: +51.00 ms server front end + network + client), " +
		"queue 0.02 ms mean, p99 ≤ 300 ms\n"
	if !strings.Contains(con.String(), want) {
		t.Errorf("console:\n%s\nwant\n%s", con.String(), want)
	}
	b := BlockOf(pt, client)
	js, _ := json.Marshal(b.Server.Latencies)
	near := func(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-9 }
	for _, c := range []struct {
		l                 Latency
		mean, lo, hi, p99 float64
	}{{b.Server.Latencies[0], 45, 100, 250, 235}, {b.Server.Latencies[1], 0.02, 0, 300, 297}} {
		if q := c.l.P99; !near(c.l.MeanMS, c.mean) || q == nil || !near(q.BucketMS[0], c.lo) || !near(q.BucketMS[1], c.hi) || !near(q.InterpolatedMS, c.p99) {
			t.Errorf("%s: want mean %v ms, p99 in (%v, %v] interpolated %v:\n%s", c.l.Metric, c.mean, c.lo, c.hi, c.p99, js)
		}
	}
	if strings.Contains(string(js), "p99_ms") {
		t.Errorf("a server quantile as a bare figure:\n%s", js)
	}
	gaps, _ := json.Marshal(b.ServerVsClient)
	if !strings.Contains(string(gaps), `"difference_covers":"server front end + network + client"`) {
		t.Errorf("server_vs_client does not say what the difference holds: %s", gaps)
	}
}

// A non-streamed run's client TTFT is its whole answer: the server's TTFT
// is shown, not compared, and only request latency has a difference
// (before: "TTFT 42.00 ms mean (client 1411.00 ms: +1369.00 ms network +
// client)").
func TestNonStreamedHasNoTTFTDifference(t *testing.T) {
	pt := &runtime.PointTelemetry{Summary: vllmLatencies(t)}
	whole := fill(30, 1411e6)
	client := &metrics.Summary{TimeToFirstToken: metrics.NewDistribution(whole), RequestLatency: metrics.NewDistribution(whole)}
	var con bytes.Buffer
	Console(pt, client)(&con)
	want := "Server latency: TTFT 45.00 ms mean, p99 in (100, 250] ms (not compared: not streamed, so the client's TTFT is its whole answer), " +
		"request latency 1360.00 ms mean, p99 in (1000, 1500] ms (client mean 1411.00 ms: +51.00 ms server front end + network + client), "
	if !strings.Contains(con.String(), want) || strings.Contains(con.String(), "+1366") {
		t.Errorf("console:\n%s\nwant it to start\n%s", con.String(), want)
	}
	b := BlockOf(pt, client)
	if len(b.ServerVsClient) != 1 || b.ServerVsClient[0].Metric != metrics.LatencyRequestLatency || math.Abs(*b.ServerVsClient[0].DifferenceMS-51) > 1e-9 {
		js, _ := json.Marshal(b.ServerVsClient)
		t.Errorf("server_vs_client %s, want request latency only, +51 ms", js)
	}
}

func fill(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}
