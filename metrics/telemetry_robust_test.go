package metrics

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestTelemetryPartialEndpoints: a vLLM-only endpoint has no GPUs, a
// DCGM-only one no server part, and nothing at all gives a summary of
// unknowns that say why.
func TestTelemetryPartialEndpoints(t *testing.T) {
	w := TelemetryWindow{Start: sec(1), End: sec(3), OutputTokens: 100, CostPerHour: 2}
	vllmOnly := ReduceTelemetry(vllmGauges("v:8000"), w)
	if len(vllmOnly.GPUs) != 0 || vllmOnly.Power != nil || vllmOnly.Utilization != nil {
		t.Errorf("vLLM only: GPUs %v, power %v", vllmOnly.GPUs, vllmOnly.Power)
	}
	if vllmOnly.Energy.OK || !strings.Contains(vllmOnly.EnergyPerToken.Why, "no GPU telemetry") {
		t.Errorf("vLLM only: energy per token %+v", vllmOnly.EnergyPerToken)
	}
	// The price needs no GPU: 2 / (50 tokens/s × 3600) × 1e6.
	within(t, "vLLM only: cost", vllmOnly.CostPerMillionTokens, 2/(50.0*3600)*1e6, 1e-12)

	dcgmOnly := ReduceTelemetry(constantPowerGPU("h:9400", "0", 100, 0, 1, 5, func(at float64) float64 { return 1e5 * at }), w)
	if len(dcgmOnly.Server.Engines) != 0 || dcgmOnly.Server.Running != nil || len(dcgmOnly.Server.Latencies) != 0 {
		t.Errorf("DCGM only: server %+v", dcgmOnly.Server)
	}
	if dcgmOnly.Server.Preemptions.OK || !strings.Contains(dcgmOnly.Server.Preemptions.Why, "no inference-server metrics") {
		t.Errorf("DCGM only: preemptions %+v", dcgmOnly.Server.Preemptions)
	}
	within(t, "DCGM only: energy", dcgmOnly.Energy, 200, 1e-12)

	none := ReduceTelemetry(nil, w)
	if none.Energy.OK || none.Server.PrefixCacheHitRate.OK || none.Power != nil || len(none.GPUs) != 0 {
		t.Errorf("no samples: %+v", none)
	}
	empty := ReduceTelemetry(vllmGauges("v:8000"), TelemetryWindow{Start: sec(3), End: sec(3)})
	if empty.Server.Running != nil || empty.Energy.OK || !containsNote(empty.Notes, "the window is empty") {
		t.Errorf("empty window: %+v", empty)
	}
}

// TestTelemetryBadValues: NaN and ±Inf readings are dropped with a note,
// as is a second sample of a series at the same instant (the first wins).
func TestTelemetryBadValues(t *testing.T) {
	temp := "DCGM_FI_DEV_GPU_TEMP"
	samples := []TelemetrySample{
		dcgm(1, "h:9400", "0", temp, 60),
		dcgm(1, "h:9400", "0", temp, 99), // duplicate line
		dcgm(2, "h:9400", "0", temp, math.NaN()),
		dcgm(3, "h:9400", "0", temp, math.Inf(+1)),
		dcgm(4, "h:9400", "0", temp, 70),
		dcgm(4.5, "h:9400", "0", temp, 9223372036854775794), // DCGM's "blank"
		tsample(2, "v:8000", "vllm:num_requests_waiting", math.Inf(-1)),
		tsample(3, "v:8000", "vllm:num_requests_waiting", 5),
	}
	s := ReduceTelemetry(samples, TelemetryWindow{Start: sec(0), End: sec(5)})
	d := s.GPUs[0].Field("gpu_temperature")
	if d == nil || d.Count != 2 || d.Avg != 65 {
		t.Errorf("temperature %+v, want 60 and 70", d)
	}
	if s.Server.Waiting == nil || s.Server.Waiting.Count != 1 || s.Server.Waiting.Avg != 5 {
		t.Errorf("waiting %+v, want the one finite sample", s.Server.Waiting)
	}
	if !containsNote(s.Notes, "4 NaN, infinite or DCGM-blank values ignored (DCGM_FI_DEV_GPU_TEMP, vllm:num_requests_waiting)") ||
		!containsNote(s.Notes, "1 duplicate samples") {
		t.Errorf("notes %q", s.Notes)
	}
}

// TestTelemetryOrderIndependent: the samples in any order, with labels in
// any order, give the same summary.
func TestTelemetryOrderIndependent(t *testing.T) {
	var samples []TelemetrySample
	samples = append(samples, constantPowerGPU("h:9400", "0", 300, 1e9, 0.33, 10, func(at float64) float64 { return 3e5 * at })...)
	samples = append(samples, constantPowerGPU("g:9400", "0", 200, 1e9, 0.5, 10, func(at float64) float64 { return 2e5 * at })...)
	samples = append(samples, vllmGauges("v:8000")...)
	samples = append(samples, vllmCounters("v:8000")...)
	samples = append(samples, ttftHistogram(0, "0", 5, 8, 10, 1.5)...)
	samples = append(samples, ttftHistogram(10, "0", 15, 38, 50, 9.5)...)
	w := TelemetryWindow{Start: sec(1.1), End: sec(8.7), OutputTokens: 1000}
	want := ReduceTelemetry(samples, w)
	r := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		shuffled := slices.Clone(samples)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for i := range shuffled {
			l := slices.Clone(shuffled[i].Labels)
			slices.Reverse(l)
			shuffled[i].Labels = l
		}
		if got := ReduceTelemetry(shuffled, w); !reflect.DeepEqual(got, want) {
			t.Fatalf("shuffled samples give another summary:\n%+v\nwant\n%+v", got, want)
		}
	}
	// Samples sharing one labels slice per label set, as the scraper's do
	// (here even across series names), give the same summary too.
	shared := slices.Clone(samples)
	bySet := map[string][]Label{}
	for i := range shared {
		k := labelsKey(sortedLabels(shared[i].Labels))
		if bySet[k] == nil {
			bySet[k] = shared[i].Labels
		}
		shared[i].Labels = bySet[k]
	}
	if got := ReduceTelemetry(shared, w); !reflect.DeepEqual(got, want) {
		t.Fatalf("samples sharing labels give another summary:\n%+v\nwant\n%+v", got, want)
	}
	// Two hosts scraped at different instants: 0.33 s and 0.5 s. Each
	// holds its last value until its next scrape, so every instant where
	// both have a fresh value totals 300 + 200 W.
	if want.Power == nil || want.Power.Min != 500 || want.Power.Max != 500 {
		t.Errorf("total power across hosts %+v, want 500 W throughout", want.Power)
	}
	within(t, "energy across hosts", want.Energy, 500*7.6, 1e-9)
}

// TestAlignedValuesStale: a source that stops answering is not held
// forever; instants where it is stale are left out.
func TestAlignedValuesStale(t *testing.T) {
	a := []point{{0, 1}, {10, 1}, {20, 1}, {30, 1}, {40, 1}}
	b := []point{{5, 2}, {15, 2}} // stops after 15; stale after 15 + 15
	got := alignedValues([][]point{a, b}, sumOf)
	// Instants 0 (b not yet seen) and 40 (b's 15 is 25 old > 15) are left out.
	if want := []float64{3, 3, 3, 3, 3}; !slices.Equal(got, want) {
		t.Errorf("alignedValues = %v, want %v (instants 5, 10, 15, 20, 30)", got, want)
	}
}

// A point shorter than the scrape interval holds no scrape: the readings
// around it stand for it instead of leaving it without power.
func TestTelemetryShortWindow(t *testing.T) {
	samples := []TelemetrySample{
		dcgm(1, "h:9400", "0", "DCGM_FI_DEV_POWER_USAGE", 300),
		dcgm(1.33, "h:9400", "0", "DCGM_FI_DEV_POWER_USAGE", 500),
		dcgm(1.66, "h:9400", "0", "DCGM_FI_DEV_POWER_USAGE", 900),
	}
	s := ReduceTelemetry(samples, TelemetryWindow{Start: sec(1.1), End: sec(1.2)})
	if d := s.GPUs[0].Field("gpu_power_usage"); d == nil || d.Count != 2 || d.Avg != 400 {
		t.Errorf("power of a short window %+v, want the readings at 1 s and 1.33 s", d)
	}
}
