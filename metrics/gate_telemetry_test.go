package metrics

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// gateTelemetrySummary is a point with two GPUs: GPU 0 drew 200, 300 and
// 400 W at 40, 60, 80 % busy, GPU 1 300 W throughout at 20, 30, 40 %, so
// the totals per scrape are 500, 600, 700 W and the mean utilisations 30,
// 45, 60 %. KV-cache use was 80, 60, 70 % and 1, 3, 4 requests waited.
func gateTelemetrySummary() *TelemetrySummary {
	gpu := func(index string, power, util []float64) GPUTelemetry {
		return GPUTelemetry{ID: GPUID{Source: "h:9400", Index: index}, Fields: []GPUField{
			{TelemetryField: TelemetryFields[fieldPower], Stats: NewDistribution(power)},
			{TelemetryField: TelemetryFields[fieldUtilization], Stats: NewDistribution(util)},
		}}
	}
	return &TelemetrySummary{
		GPUs: []GPUTelemetry{
			gpu("0", []float64{200, 300, 400}, []float64{40, 60, 80}),
			gpu("1", []float64{300, 300, 300}, []float64{20, 30, 40}),
		},
		Power:                NewDistribution([]float64{500, 600, 700}),
		Utilization:          NewDistribution([]float64{30, 45, 60}),
		EnergyPerToken:       knownValue(0.25),
		CostPerMillionTokens: knownValue(1.5),
		Server: ServerTelemetry{
			KVCacheUsage: NewDistribution([]float64{80, 60, 70}),
			Waiting:      NewDistribution([]float64{1, 3, 4}),
		},
	}
}

func TestGateMeasureTelemetry(t *testing.T) {
	s := gateTelemetrySummary()
	cases := []struct {
		gate string
		want float64
		pass bool
	}{
		// Totals across GPUs: avg 600 W; p99 of 500, 600, 700 is
		// 700 − 100·0.02 = 698 W.
		{"gpu_power < 700W", 600, true},
		{"gpu_power.p99 < 690W", 698, false},
		{"gpu_power.max <= 700", 700, true},
		// Per GPU, the worst for the comparison: maxima 400 and 300 W, the
		// highest fails "< 350", the lowest fails "> 350"; averages 300 and
		// 300 W.
		{"gpu_power.per_gpu.max < 350W", 400, false},
		{"gpu_power.per_gpu.max > 350W", 300, false},
		{"gpu_power.per_gpu.max >= 300W", 300, true},
		{"gpu_power.per_gpu == 300", 300, true},
		{"gpu_power.per_gpu.max != 400", 400, false},
		// Utilisation in DCGM's %, measured as the gate's ratio: mean 45 %.
		{"gpu_utilization > 40%", 0.45, true},
		{"gpu_utilization.min >= 0.3", 0.3, true},
		// GPU 1's mean of 30 % is the lowest.
		{"gpu_utilization.per_gpu > 40%", 0.3, false},
		{"gpu_utilization.per_gpu.max < 90%", 0.8, true},
		{"energy_per_token < 0.3J", 0.25, true},
		{"cost_per_mtok < 1", 1.5, false},
		// KV-cache use: avg 70 %, max 80 %; waiting: avg 8/3, max 4.
		{"kv_cache_usage < 75%", 0.7, true},
		{"kv_cache_usage.max < 75%", 0.8, false},
		{"num_requests_waiting.max <= 4", 4, true},
		{"num_requests_waiting < 2", 8.0 / 3, false},
	}
	for _, c := range cases {
		g := mustParseGate(t, c.gate)
		if !g.MeasuredFromTelemetry() {
			t.Errorf("%q: MeasuredFromTelemetry is false", c.gate)
		}
		got, err := g.MeasureTelemetry(s)
		if err != nil {
			t.Errorf("%q.MeasureTelemetry: %v", c.gate, err)
			continue
		}
		if math.Abs(got-c.want) > 1e-12*math.Abs(c.want) {
			t.Errorf("%q.MeasureTelemetry = %v, want %v", c.gate, got, c.want)
		}
		if pass := g.Check(got, math.NaN()); pass != c.pass {
			t.Errorf("%q.Check(%v) = %v, want %v", c.gate, got, pass, c.pass)
		}
	}
}

func TestGateMeasureTelemetryNotMeasured(t *testing.T) {
	none := ReduceTelemetry(nil, TelemetryWindow{Start: 0, End: sec(1), OutputTokens: 10})
	cases := []struct {
		gate string
		t    *TelemetrySummary
		want string
	}{
		{"gpu_power < 700", nil, "gpu_power.avg: not measured in this run: no telemetry"},
		{"gpu_power < 700", &none, "gpu_power.avg: not measured in this run: no GPU telemetry (no DCGM exporter among the telemetry URLs)"},
		{"gpu_power.per_gpu.max < 700", &none, "gpu_power.per_gpu.max: not measured in this run: no GPU telemetry"},
		{"gpu_utilization.per_gpu > 5%", &TelemetrySummary{GPUs: []GPUTelemetry{{}}},
			"gpu_utilization.per_gpu.avg: not measured in this run: no GPU exported gpu_utilization during the point"},
		{"energy_per_token < 1", &none, "energy_per_token: not measured in this run: no GPU telemetry"},
		{"cost_per_mtok < 1", &none, "cost_per_mtok: not measured in this run: no price was given (cost_per_hour=)"},
		{"kv_cache_usage < 90%", &none, "kv_cache_usage.avg: not measured in this run: the server exports no KV-cache use"},
		{"num_requests_waiting < 3", &none, "num_requests_waiting.avg: not measured in this run: the server exports no queue length"},
	}
	for _, c := range cases {
		v, err := mustParseGate(t, c.gate).MeasureTelemetry(c.t)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.Is(err, ErrNotMeasured) || !math.IsNaN(v) {
			t.Errorf("%q.MeasureTelemetry = %v, %v; want NaN, %q… wrapping ErrNotMeasured", c.gate, v, err, c.want)
		}
	}
	g := mustParseGate(t, "ttft.p99 < 5")
	if g.MeasuredFromTelemetry() {
		t.Error("ttft is measured from telemetry")
	}
	if _, err := g.MeasureTelemetry(gateTelemetrySummary()); err == nil || errors.Is(err, ErrNotMeasured) {
		t.Errorf("ttft.MeasureTelemetry: %v, want a plain error", err)
	}
	// The summary's gates: Measure on a Summary never knows telemetry.
	if _, err := mustParseGate(t, "kv_cache_usage < 90%").Measure(gateTestSummary()); !errors.Is(err, ErrNotMeasured) {
		t.Errorf("kv_cache_usage.Measure: %v, want ErrNotMeasured", err)
	}
}

// TestGateTelemetryNeeds: every telemetry gate needs telemetry, which
// runtime's check reports with this text.
func TestGateTelemetryNeeds(t *testing.T) {
	for _, gate := range []string{"gpu_power < 1", "gpu_utilization.per_gpu > 1%", "energy_per_token < 1",
		"kv_cache_usage < 1%", "num_requests_waiting < 1"} {
		if n := mustParseGate(t, gate).Needs(); n != NeedTelemetry {
			t.Errorf("%q needs %q, want %q", gate, n, NeedTelemetry)
		}
	}
	if strings.Contains(string(NeedTelemetry), "not supported") {
		t.Errorf("NeedTelemetry = %q still says telemetry is unsupported", NeedTelemetry)
	}
}
