package metrics

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// sec is s seconds in ns.
func sec(s float64) int64 { return int64(math.Round(s * 1e9)) }

// tsample is a sample at s seconds; labels are name, value pairs in any
// order.
func tsample(s float64, source, name string, value float64, labels ...string) TelemetrySample {
	x := TelemetrySample{Time: sec(s), Source: source, Name: name, Value: value}
	for i := 0; i+1 < len(labels); i += 2 {
		x.Labels = append(x.Labels, Label{labels[i], labels[i+1]})
	}
	x.Labels = sortedLabels(x.Labels)
	return x
}

// dcgm is a DCGM sample of GPU gpu (UUID GPU-<gpu>) on host.
func dcgm(s float64, host, gpu, field string, value float64) TelemetrySample {
	return tsample(s, host, field, value, "gpu", gpu, "UUID", "GPU-"+gpu, "device", "nvidia"+gpu, "modelName", "NVIDIA H100")
}

// TestTelemetryGenAIPerfExample recomputes the telemetry_stats of
// GenAI-Perf's example export from two scrapes of GPU 0 and compares every
// number float for float: power 100 and 200 W, limit 300 W, energy 1e9 and
// 2e9 mJ, 81559 MiB total, 1000 and 2000 MiB used, 50 and 70 % busy. By
// hand: power avg 150, p1 100 + 100·0.01 = 101, std 50; energy avg 1.5e9
// mJ × 1e-9 = 1.5 MJ, p90 1.9e9 × 1e-9 = 1.9000000000000001; memory used
// avg 1500 × 1.048576e-3 = 1.572864 GB; total 81559 × 1.048576e-3 =
// 85.52080998400001 GB; utilisation p1 50.2, std 10.
func TestTelemetryGenAIPerfExample(t *testing.T) {
	var samples []TelemetrySample
	for i, row := range [][6]float64{{100, 300, 1e9, 81559, 1000, 50}, {200, 300, 2e9, 81559, 2000, 70}} {
		at := 1 + 0.33*float64(i)
		for j, field := range []string{"DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_POWER_MGMT_LIMIT",
			"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_FB_TOTAL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_UTIL"} {
			samples = append(samples, dcgm(at, "localhost:9400", "0", field, row[j]))
		}
	}
	s := ReduceTelemetry(samples, TelemetryWindow{Start: sec(1), End: sec(1.33)})
	if len(s.GPUs) != 1 {
		t.Fatalf("%d GPUs, want 1", len(s.GPUs))
	}
	g := s.GPUs[0]
	want := readExampleTelemetry(t)
	var names []string
	for _, f := range g.Fields {
		names = append(names, f.Name)
		w, ok := want[f.Name]
		if !ok {
			t.Errorf("%s: not in the example", f.Name)
			continue
		}
		if w.Unit != f.Unit {
			t.Errorf("%s: unit %q, want %q", f.Name, f.Unit, w.Unit)
		}
		got := statsOf(f.Stats)
		if len(w.GPUs[strings.TrimPrefix(g.GenAIPerfKey, "gpu")]) == 0 {
			t.Errorf("%s: the example has no GPU %q", f.Name, g.GenAIPerfKey)
		}
		for stat, v := range w.GPUs[strings.TrimPrefix(g.GenAIPerfKey, "gpu")] {
			same(t, f.Name+"."+stat, got[stat], v)
		}
		if f.Constant != (len(w.GPUs[strings.TrimPrefix(g.GenAIPerfKey, "gpu")]) == 1) {
			t.Errorf("%s: Constant = %v, but the example has %d statistics", f.Name, f.Constant, len(w.GPUs[strings.TrimPrefix(g.GenAIPerfKey, "gpu")]))
		}
	}
	// The example's keys are in GenAI-Perf's TELEMETRY_METRICS order.
	wantOrder := []string{"gpu_power_usage", "gpu_power_limit", "energy_consumption", "total_gpu_memory", "gpu_memory_used", "gpu_utilization"}
	if !slices.Equal(names, wantOrder) {
		t.Errorf("fields %v, want %v", names, wantOrder)
	}
}

type exampleTelemetry struct {
	Unit string
	GPUs map[string]map[string]float64
}

func readExampleTelemetry(t *testing.T) map[string]exampleTelemetry {
	raw, err := os.ReadFile("testdata/genai-perf-example/example_profile_export_genai_perf.json")
	if err != nil {
		t.Fatal(err)
	}
	var top struct {
		TelemetryStats map[string]map[string]json.RawMessage `json:"telemetry_stats"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	out := map[string]exampleTelemetry{}
	for metric, byKey := range top.TelemetryStats {
		e := exampleTelemetry{GPUs: map[string]map[string]float64{}}
		for key, v := range byKey {
			var err error
			if key == "unit" {
				err = json.Unmarshal(v, &e.Unit)
			} else {
				stats := map[string]float64{}
				err = json.Unmarshal(v, &stats)
				e.GPUs[key] = stats
			}
			if err != nil {
				t.Fatalf("%s.%s: %v", metric, key, err)
			}
		}
		out[metric] = e
	}
	return out
}

// TestTelemetryGPUKeys: GPU 0 of two hosts stays two GPUs, keyed by
// source and UUID, with GenAI-Perf keys prefixed by the host; a GPU
// without a UUID falls back to its index; MIG instances are apart.
func TestTelemetryGPUKeys(t *testing.T) {
	power := "DCGM_FI_DEV_POWER_USAGE"
	samples := []TelemetrySample{
		dcgm(1, "b:9400", "0", power, 200),
		dcgm(1, "a:9400", "10", power, 100),
		dcgm(1, "a:9400", "9", power, 100),
		dcgm(1, "a:9400", "0", power, 100),
		tsample(1, "c:9400", power, 50, "gpu", "3"),
		tsample(1, "c:9400", power, 20, "gpu", "4", "UUID", "GPU-4", "GPU_I_ID", "1"),
		tsample(1, "c:9400", power, 30, "gpu", "4", "UUID", "GPU-4", "GPU_I_ID", "2"),
		tsample(1, "c:9400", power, 99, "Hostname", "x"), // no gpu, no UUID
	}
	s := ReduceTelemetry(samples, TelemetryWindow{Start: sec(0), End: sec(2)})
	var keys, genai []string
	for _, g := range s.GPUs {
		keys = append(keys, g.ID.Key())
		genai = append(genai, g.GenAIPerfKey)
	}
	wantKeys := []string{"a:9400/GPU-0", "a:9400/GPU-9", "a:9400/GPU-10", "b:9400/GPU-0", "c:9400/gpu3",
		"c:9400/GPU-4/mig1", "c:9400/GPU-4/mig2"}
	wantGenAI := []string{"a:9400/gpu0", "a:9400/gpu9", "a:9400/gpu10", "b:9400/gpu0", "c:9400/gpu3", "c:9400/gpu4-mig1", "c:9400/gpu4-mig2"}
	if !slices.Equal(keys, wantKeys) || !slices.Equal(genai, wantGenAI) {
		t.Errorf("keys %v %v\nwant %v %v", keys, genai, wantKeys, wantGenAI)
	}
	// Seven GPUs sampled at one instant: 100·3 + 200 + 50 + 20 + 30.
	if s.Power == nil || s.Power.Count != 1 || s.Power.Avg != 600 {
		t.Errorf("total power %+v, want one scrape of 600 W", s.Power)
	}
	if !slices.ContainsFunc(s.Notes, func(n string) bool { return strings.Contains(n, "neither a UUID nor a gpu label") }) {
		t.Errorf("notes %q do not mention the series without a GPU", s.Notes)
	}
	if GenAIPerfGPUKey(GPUID{Source: "h:9400", Index: "0", UUID: "GPU-0"}, false) != "gpu0" {
		t.Errorf("a single source's GenAI-Perf key is gpu and its gpu label")
	}
}

// TestTelemetryWindowEdges: samples at exactly Start and End count, the
// ones outside do not.
func TestTelemetryWindowEdges(t *testing.T) {
	var samples []TelemetrySample
	for i, v := range []float64{1000, 10, 20, 30, 40, 2000} { // at 0..5 s
		samples = append(samples, dcgm(float64(i), "h:9400", "0", "DCGM_FI_DEV_GPU_TEMP", v))
	}
	s := ReduceTelemetry(samples, TelemetryWindow{Start: sec(1), End: sec(4)})
	d := s.GPUs[0].Field("gpu_temperature")
	if d == nil || d.Count != 4 || d.Min != 10 || d.Max != 40 || d.Avg != 25 {
		t.Errorf("gpu_temperature %+v, want the 4 samples 10..40", d)
	}
	if s.GPUs[0].Field("gpu_power_usage") != nil {
		t.Error("a field the GPU never exported has statistics")
	}
}
