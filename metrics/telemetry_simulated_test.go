package metrics

import (
	"slices"
	"strings"
	"testing"
)

// simulatorPage is what llmbench's simulator exports at host, scraped
// every second from 0 to 10 s: its marker, a made-up H100 drawing 700 W
// and a vLLM queue.
func simulatorPage(host string) []TelemetrySample {
	out := constantPowerGPU(host, "0", 700, 0, 1, 10, func(at float64) float64 { return 700 * at * 1e3 })
	for i := 0; i <= 10; i++ {
		at := float64(i)
		out = append(out, tsample(at, host, SimulatedMarker, 1),
			tsample(at, host, "vllm:num_requests_running", 9, "model_name", "m"))
	}
	return out
}

// TestSimulatedSourceLeftOutBesideRealOnes: two real A100s drawing 250 W
// each and the simulator's 700 W H100, over a 4 s window and 2000 output
// tokens. By hand, the real GPUs' energy is 2 × 250 W × 4 s = 2000 J, so
// 1 J/token; merged with the made-up GPU it would be 4800 J and 2.4
// J/token. The simulator is left out of every reduction (GPUs, power,
// server, timeline) with a warning naming it.
func TestSimulatedSourceLeftOutBesideRealOnes(t *testing.T) {
	real := append(constantPowerGPU("gpu-host:9400", "0", 250, 1e9, 1, 10, func(at float64) float64 { return 250 * at * 1e3 }),
		constantPowerGPU("gpu-host:9400", "1", 250, 1e9, 1, 10, func(at float64) float64 { return 250 * at * 1e3 })...)
	samples := append(real, simulatorPage("127.0.0.1:8000")...)
	w := TelemetryWindow{Start: sec(3), End: sec(7), OutputTokens: 2000}
	s := ReduceTelemetry(samples, w)
	if len(s.GPUs) != 2 || slices.ContainsFunc(s.GPUs, func(g GPUTelemetry) bool { return g.ID.Source != "gpu-host:9400" || g.Simulated }) {
		t.Fatalf("GPUs %+v, want the two real ones", s.GPUs)
	}
	within(t, "energy", s.Energy, 2000, 1e-9)
	within(t, "energy per token", s.EnergyPerToken, 1, 1e-9)
	if s.Power == nil || s.Power.Avg != 500 || s.Power.Max != 500 {
		t.Errorf("total power %+v, want 500 W", s.Power)
	}
	if s.Simulated || len(s.Server.Engines) != 0 {
		t.Errorf("simulated %v, server engines %v: the simulator's made-up server must not be reduced", s.Simulated, s.Server.Engines)
	}
	if !slices.Equal(s.SimulatedSources, []string{"127.0.0.1:8000"}) || !slices.Equal(s.SimulatedLeftOut, []string{"127.0.0.1:8000"}) {
		t.Errorf("simulated sources %v, left out %v", s.SimulatedSources, s.SimulatedLeftOut)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "127.0.0.1:8000") || !strings.Contains(s.Warnings[0], "simulat") {
		t.Errorf("warnings %q, want one naming the simulated source", s.Warnings)
	}
	tl := TimelineOf(samples)
	if len(tl.Power) == 0 || slices.ContainsFunc(tl.Power, func(v TimedValue) bool { return v.Value != 500 }) || tl.Running != nil || tl.Simulated {
		t.Errorf("timeline power %v, running %v, simulated %v: the simulator must be left out", tl.Power, tl.Running, tl.Simulated)
	}
}

// TestSimulatedOnlyIsLabelled: the simulator alone is reduced, and every
// figure says it is simulated: the summary, each GPU, and the GPU's key in
// GenAI-Perf's files.
func TestSimulatedOnlyIsLabelled(t *testing.T) {
	s := ReduceTelemetry(simulatorPage("127.0.0.1:8000"), TelemetryWindow{Start: sec(3), End: sec(7), OutputTokens: 2000})
	if !s.Simulated || len(s.GPUs) != 1 || !s.GPUs[0].Simulated || s.GPUs[0].GenAIPerfKey != "gpu0 (simulated)" {
		t.Fatalf("simulated %v, GPUs %+v", s.Simulated, s.GPUs)
	}
	within(t, "energy", s.Energy, 2800, 1e-9)
	if len(s.SimulatedLeftOut) != 0 || len(s.Warnings) != 0 || len(s.Server.Engines) != 1 {
		t.Errorf("left out %v, warnings %v, engines %v", s.SimulatedLeftOut, s.Warnings, s.Server.Engines)
	}
	if !TimelineOf(simulatorPage("127.0.0.1:8000")).Simulated {
		t.Error("timeline of the simulator alone not marked simulated")
	}
	// A marker at 0 is no claim: the source is real.
	page := simulatorPage("127.0.0.1:8000")
	for i := range page {
		if page[i].Name == SimulatedMarker {
			page[i].Value = 0
		}
	}
	if s := ReduceTelemetry(page, TelemetryWindow{Start: sec(3), End: sec(7)}); s.Simulated || s.GPUs[0].GenAIPerfKey != "gpu0" {
		t.Errorf("marker 0: simulated %v, key %q", s.Simulated, s.GPUs[0].GenAIPerfKey)
	}
}

// TestServerLongerThanClientIsNoDifference: the server's mean TTFT above
// the client's cannot be the network and the client (the server's clock
// starts after the client's send and stops before its receipt); it means
// the server's window held other requests. The difference is then
// unknown, saying so, never a negative "network + client".
func TestServerLongerThanClientIsNoDifference(t *testing.T) {
	server := &TelemetrySummary{Server: ServerTelemetry{Latencies: []ServerLatency{
		{Metric: LatencyTTFT, OK: true, Count: 10, Mean: 60e6},
		{Metric: LatencyRequestLatency, OK: true, Count: 10, Mean: 900e6},
	}}}
	client := &Summary{TimeToFirstToken: NewDistribution([]float64{40e6, 50e6, 60e6}), TimeToSecondToken: NewDistribution([]float64{5e6}), RequestLatency: NewDistribution([]float64{1000e6})}
	g, err := CompareServerLatency(LatencyTTFT, client, server)
	if err != nil {
		t.Fatal(err)
	}
	if g.Client != 50e6 || g.Server != 60e6 || g.Difference.OK ||
		!strings.Contains(g.Difference.Why, "server window differs from client's") {
		t.Errorf("TTFT gap %+v, want the difference unknown", g)
	}
	g, err = CompareServerLatency(LatencyRequestLatency, client, server)
	if err != nil || !g.Difference.OK || g.Difference.Value != 100e6 {
		t.Errorf("request latency gap %+v (%v), want 100 ms", g, err)
	}
}

// A shard's window holds only its share of the point's tokens while the
// GPUs' energy is the whole server's: its energy per token, tokens per
// joule and cost per token are unknown, saying why, not N times too high;
// energy and power are still the GPUs'.
func TestShardShareHasNoPerTokenFigures(t *testing.T) {
	samples := constantPowerGPU("h:9400", "0", 300, 0, 1, 10, func(at float64) float64 { return 300 * at * 1e3 })
	w := TelemetryWindow{Start: sec(2), End: sec(6), OutputTokens: 600, CostPerHour: 3.6, Share: "shard 1 of 2 sent only its share"}
	s := ReduceTelemetry(samples, w)
	within(t, "energy", s.Energy, 1200, 1e-9)
	within(t, "average power", s.AveragePower, 300, 1e-9)
	for what, v := range map[string]TelemetryValue{"J/token": s.EnergyPerToken, "tokens/J": s.TokensPerJoule, "cost": s.CostPerMillionTokens} {
		if v.OK || v.Why != w.Share {
			t.Errorf("%s %+v, want unknown: %s", what, v, w.Share)
		}
	}
}
