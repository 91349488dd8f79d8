package metrics

import (
	"math"
	"strings"
	"testing"
)

const energyField = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"

// constantPowerGPU is a synthetic DCGM endpoint drawing p W from 0 to end
// s, scraped every step s: its power reads p and its energy counter (mJ)
// starts at e0 and rises by counter(t), the energy since 0.
func constantPowerGPU(host, gpu string, p, e0, step, end float64, counter func(t float64) float64) []TelemetrySample {
	var out []TelemetrySample
	for i := 0; float64(i)*step <= end; i++ {
		at := float64(i) * step
		out = append(out,
			dcgm(at, host, gpu, "DCGM_FI_DEV_POWER_USAGE", p),
			dcgm(at, host, gpu, energyField, e0+counter(at)))
	}
	return out
}

func within(t *testing.T, what string, got TelemetryValue, want, rel float64) {
	t.Helper()
	if !got.OK {
		t.Errorf("%s unknown (%s), want %v", what, got.Why, want)
		return
	}
	if math.Abs(got.Value-want) > rel*math.Abs(want) {
		t.Errorf("%s = %v, want %v (±%g relative)", what, got.Value, want, rel)
	}
}

// TestEnergyConstantPower: 300 W drawn exactly, the counter rising at 300
// W from 2.5e11 mJ (about three days since boot), scraped every second; the
// window 2.5 s to 12.25 s is not aligned to the scrapes. By hand: 9.75 s ×
// 300 W = 2925 J; average power 2925 / 9.75 = 300 W; 5850 output tokens
// give 2925 / 5850 = 0.5 J/token and 2 tokens/J; at $3.60/h the
// throughput 5850 / 9.75 = 600 tokens/s costs 3.6 / (600 × 3600) × 1e6 =
// $1.6667 per million tokens.
func TestEnergyConstantPower(t *testing.T) {
	exact := func(at float64) float64 { return 300 * at * 1e3 }
	samples := constantPowerGPU("h:9400", "0", 300, 2.5e11, 1, 20, exact)
	w := TelemetryWindow{Start: sec(2.5), End: sec(12.25), OutputTokens: 5850, CostPerHour: 3.6, Currency: "USD"}
	s := ReduceTelemetry(samples, w)
	within(t, "GPU energy", s.GPUs[0].Energy, 2925, 1e-9)
	within(t, "GPU average power", s.GPUs[0].AveragePower, 300, 1e-9)
	within(t, "energy", s.Energy, 2925, 1e-9)
	within(t, "average power", s.AveragePower, 300, 1e-9)
	within(t, "energy per token", s.EnergyPerToken, 0.5, 1e-9)
	within(t, "tokens per joule", s.TokensPerJoule, 2, 1e-9)
	within(t, "cost per million tokens", s.CostPerMillionTokens, 3.6/(600*3600)*1e6, 1e-9)
	if p := s.GPUs[0].Field("gpu_power_usage"); p == nil || p.Avg != 300 || p.P99 != 300 {
		t.Errorf("power samples %+v, want mean and p99 300 W", p)
	}
	// Ten scrapes (3..12 s) inside the window, each totalling 300 W.
	if s.Power == nil || s.Power.Count != 10 || s.Power.Avg != 300 {
		t.Errorf("total power %+v, want 10 scrapes of 300 W", s.Power)
	}
}

// TestEnergyRealisticCounter: 0.33 s scrapes and a counter that, like
// NVML's, advances in 100 ms steps of whole mJ. Two GPUs, 300 W and 450 W,
// over 1.234567 s to 61.891011 s (60.656444 s, aligned to nothing): the
// energy is within 1% of P × duration, 750 W × 60.656444 s = 45492.333 J
// (each edge is off by at most one step, 75 J in all).
func TestEnergyRealisticCounter(t *testing.T) {
	stepped := func(p float64) func(float64) float64 {
		return func(at float64) float64 { return math.Floor(p * math.Floor(at/0.1) * 0.1 * 1e3) }
	}
	samples := append(constantPowerGPU("h:9400", "0", 300, 7e10, 0.33, 64, stepped(300)),
		constantPowerGPU("h:9400", "1", 450, 9e10, 0.33, 64, stepped(450))...)
	w := TelemetryWindow{Start: sec(1.234567), End: sec(61.891011), OutputTokens: 90000}
	s := ReduceTelemetry(samples, w)
	d := 61.891011 - 1.234567
	t.Logf("energy %v J, P × duration %v J", s.Energy.Value, 750*d)
	within(t, "GPU 0 energy", s.GPUs[0].Energy, 300*d, 0.01)
	within(t, "GPU 1 energy", s.GPUs[1].Energy, 450*d, 0.01)
	within(t, "energy", s.Energy, 750*d, 0.01)
	within(t, "average power", s.AveragePower, 750, 0.01)
	within(t, "energy per token", s.EnergyPerToken, 750*d/90000, 0.01)
	if s.Power == nil || s.Power.Avg != 750 {
		t.Errorf("total power %+v, want 750 W at every scrape", s.Power)
	}
	if s.CostPerMillionTokens.OK || !strings.Contains(s.CostPerMillionTokens.Why, "cost_per_hour") {
		t.Errorf("cost without a price: %+v", s.CostPerMillionTokens)
	}
}

// TestEnergyCounterReset: the counter reads 1e6, 1.3e6, then 0.1e6 after a
// GPU reset, then 0.4e6 mJ at 0, 1, 2, 3 s. Taken as a restart from zero,
// the increases are 0.3e6, 0.1e6 and 0.3e6; over 0.5 s to 2.5 s that is
// half of the first, all of the second and half of the third: 0.15e6 +
// 0.1e6 + 0.15e6 = 0.4e6 mJ = 400 J.
func TestEnergyCounterReset(t *testing.T) {
	var samples []TelemetrySample
	for i, v := range []float64{1e6, 1.3e6, 0.1e6, 0.4e6} {
		samples = append(samples, dcgm(float64(i), "h:9400", "0", energyField, v))
	}
	s := ReduceTelemetry(samples, TelemetryWindow{Start: sec(0.5), End: sec(2.5), OutputTokens: 800})
	within(t, "energy", s.Energy, 400, 1e-12)
	within(t, "energy per token", s.EnergyPerToken, 0.5, 1e-12)
	if s.GPUs[0].EnergyResets != 1 {
		t.Errorf("EnergyResets = %d, want 1", s.GPUs[0].EnergyResets)
	}
	if !containsNote(s.Notes, "went back during the point") {
		t.Errorf("notes %q do not mention the reset", s.Notes)
	}
	// A reset outside the window is not counted.
	s = ReduceTelemetry(samples, TelemetryWindow{Start: sec(0), End: sec(1)})
	within(t, "energy before the reset", s.Energy, 300, 1e-12)
	if s.GPUs[0].EnergyResets != 0 {
		t.Errorf("a reset outside the window was counted")
	}
}

// TestEnergyNotBracketed: without a sample on both sides of an edge the
// energy is unknown (no extrapolation), and every value derived from it
// says why.
func TestEnergyNotBracketed(t *testing.T) {
	samples := constantPowerGPU("h:9400", "0", 300, 1e9, 1, 10, func(at float64) float64 { return 300 * at * 1e3 })
	for _, c := range []struct {
		start, end float64
		why        string
	}{
		{-0.5, 5, "no sample at or before the point's start (the first came 500ms after it)"},
		{2, 11, "no sample at or after the point's end (the last came 1s before it)"},
	} {
		s := ReduceTelemetry(samples, TelemetryWindow{Start: sec(c.start), End: sec(c.end), OutputTokens: 100})
		for what, v := range map[string]TelemetryValue{"GPU energy": s.GPUs[0].Energy, "energy": s.Energy,
			"average power": s.AveragePower, "energy per token": s.EnergyPerToken, "tokens per joule": s.TokensPerJoule} {
			if v.OK || !strings.Contains(v.Why, c.why) || !strings.Contains(v.Why, "h:9400 GPU 0") {
				t.Errorf("[%v, %v] %s = %+v, want unknown because %q", c.start, c.end, what, v, c.why)
			}
		}
	}
	// Exactly at the first and last samples is bracketed.
	s := ReduceTelemetry(samples, TelemetryWindow{Start: sec(0), End: sec(10)})
	within(t, "energy over the whole scrape", s.Energy, 3000, 1e-12)
}

// TestEnergyMissingGPU: one GPU without the energy field makes the total
// unknown, not the other GPU's energy alone.
func TestEnergyMissingGPU(t *testing.T) {
	samples := constantPowerGPU("h:9400", "0", 100, 0, 1, 10, func(at float64) float64 { return 100 * at * 1e3 })
	samples = append(samples, dcgm(1, "h:9400", "1", "DCGM_FI_DEV_POWER_USAGE", 90), dcgm(2, "h:9400", "1", "DCGM_FI_DEV_POWER_USAGE", 90))
	s := ReduceTelemetry(samples, TelemetryWindow{Start: sec(1), End: sec(9), OutputTokens: 10})
	within(t, "GPU 0 energy", s.GPUs[0].Energy, 800, 1e-12)
	if s.Energy.OK || !strings.Contains(s.Energy.Why, "h:9400 GPU 1 (GPU-1) exported no DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION") {
		t.Errorf("energy %+v, want unknown for GPU 1", s.Energy)
	}
}

func containsNote(notes []string, part string) bool {
	for _, n := range notes {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}
