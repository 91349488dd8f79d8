package metrics

// TelemetryField is one DCGM exporter field as GenAI-Perf reports it.
type TelemetryField struct {
	// DCGM is the exporter's series name (DCGM_FI_DEV_POWER_USAGE).
	DCGM string
	// Name is GenAI-Perf's metric name, the key of telemetry_stats
	// (gpu_power_usage); Unit its unit after Scale.
	Name, Unit string
	// Scale multiplies every statistic after it is computed from the raw
	// values, GenAI-Perf's TelemetryStatistics.scale_data: scaling the
	// statistics rather than the values is what reproduces its digits.
	Scale float64
	// Constant marks the fields GenAI-Perf reports with avg only
	// (gpu_power_limit, total_gpu_memory) and prints in the CSV's
	// Metric,GPU,Value table.
	Constant bool
}

// mibToGB is GenAI-Perf's MiB → GB factor, written as it writes it.
var mibToGB = 1.048576 * 1e-3

// TelemetryFields are the DCGM fields GenAI-Perf collects, in its
// TELEMETRY_METRICS order (power, memory, utilisation, clocks,
// temperatures, ECC and errors, PCIe), which is the order telemetry_stats
// and the CSV GPU table list them in. Names, units and factors are those of
// genai_perf/telemetry_data/dcgm_telemetry_data_collector.py,
// metrics/telemetry_metrics.py and metrics/telemetry_statistics.py
// (triton-inference-server/perf_analyzer, read at 263c5f6, Dec 2025).
var TelemetryFields = []TelemetryField{
	{"DCGM_FI_DEV_POWER_USAGE", "gpu_power_usage", "W", 1, false},
	{"DCGM_FI_DEV_POWER_MGMT_LIMIT", "gpu_power_limit", "W", 1, true},
	{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "energy_consumption", "MJ", 1e-9, false}, // mJ
	{"DCGM_FI_DEV_FB_TOTAL", "total_gpu_memory", "GB", mibToGB, true},
	{"DCGM_FI_DEV_FB_USED", "gpu_memory_used", "GB", mibToGB, false},
	{"DCGM_FI_DEV_FB_FREE", "gpu_memory_free", "GB", 1.048576e-3, false},
	{"DCGM_FI_DEV_GPU_UTIL", "gpu_utilization", "%", 1, false},
	{"DCGM_FI_PROF_SM_ACTIVE", "sm_utilization", "%", 100, false}, // a ratio
	{"DCGM_FI_DEV_MEM_COPY_UTIL", "memory_copy_utilization", "%", 1, false},
	{"DCGM_FI_DEV_ENC_UTIL", "video_encoder_utilization", "%", 1, false},
	{"DCGM_FI_DEV_DEC_UTIL", "video_decoder_utilization", "%", 1, false},
	{"DCGM_FI_DEV_SM_CLOCK", "gpu_clock_sm", "MHz", 1, false},
	{"DCGM_FI_DEV_MEM_CLOCK", "gpu_clock_memory", "MHz", 1, false},
	{"DCGM_FI_DEV_GPU_TEMP", "gpu_temperature", "C", 1, false},
	{"DCGM_FI_DEV_MEMORY_TEMP", "gpu_memory_temperature", "C", 1, false},
	{"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "total_ecc_sbe_volatile", "errors", 1, false},
	{"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "total_ecc_dbe_volatile", "errors", 1, false},
	{"DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "total_ecc_sbe_aggregate", "errors", 1, false},
	{"DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "total_ecc_dbe_aggregate", "errors", 1, false},
	{"DCGM_FI_DEV_XID_ERRORS", "xid_last_error", "errors", 1, false},
	{"DCGM_FI_DEV_POWER_VIOLATION", "power_throttle_duration", "us", 1, false},
	{"DCGM_FI_DEV_THERMAL_VIOLATION", "thermal_throttle_duration", "us", 1, false},
	{"DCGM_FI_DEV_RETIRED_SBE", "retired_pages_sbe", "pages", 1, false},
	{"DCGM_FI_DEV_RETIRED_DBE", "retired_pages_dbe", "pages", 1, false},
	{"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "total_nvlink_crc_flit_errors", "errors", 1, false},
	{"DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", "total_nvlink_crc_data_errors", "errors", 1, false},
	{"DCGM_FI_PROF_PCIE_TX_BYTES", "pcie_transmit_throughput", "KB/s", 1.0 / 1024, false}, // B/s
	{"DCGM_FI_PROF_PCIE_RX_BYTES", "pcie_receive_throughput", "KB/s", 1.0 / 1024, false},  // B/s
	{"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "pcie_replay_counter", "retries", 1, false},
}

// The fields the reductions read beyond their statistics.
var (
	fieldPower       = telemetryFieldIndex("gpu_power_usage")
	fieldEnergy      = telemetryFieldIndex("energy_consumption")
	fieldUtilization = telemetryFieldIndex("gpu_utilization")
)

func telemetryFieldIndex(name string) int {
	for i, f := range TelemetryFields {
		if f.Name == name {
			return i
		}
	}
	panic("no telemetry field " + name)
}

// GPUField is one field's statistics on one GPU.
type GPUField struct {
	TelemetryField
	// Stats are GenAI-Perf's statistics of the field's samples inside the
	// window, in Unit (already scaled); avg alone is meaningful for a
	// Constant field.
	Stats *Distribution
}

// GPUTelemetry is one GPU's telemetry over a point.
type GPUTelemetry struct {
	ID GPUID
	// GenAIPerfKey is the GPU's key in GenAI-Perf's telemetry_stats and CSV
	// GPU column (GenAIPerfGPUKey), with " (simulated)" after it for the
	// simulator's GPU: those files have no other place for the word.
	GenAIPerfKey string
	// Simulated marks the simulator's made-up GPU (SimulatedMarker).
	Simulated bool
	// ModelName is the DCGM modelName label ("NVIDIA H100 80GB HBM3").
	ModelName string
	// Fields are the fields this GPU exported inside the window, in
	// TelemetryFields order.
	Fields []GPUField
	// Energy is the energy counter's increase over the window (J), and
	// AveragePower that divided by the window's length (W).
	Energy, AveragePower TelemetryValue
	// EnergyResets counts the times the energy counter went back during
	// the window (a driver reload or GPU reset); each is taken as a restart
	// from zero.
	EnergyResets int
}

// Field returns the statistics of a field by GenAI-Perf name
// (gpu_power_usage), nil when this GPU did not export it in the window.
func (g *GPUTelemetry) Field(name string) *Distribution {
	for _, f := range g.Fields {
		if f.Name == name {
			return f.Stats
		}
	}
	return nil
}

// gpuData is one GPU's samples, per field (TelemetryFields index), over
// the whole scrape, in time order.
type gpuData struct {
	id     GPUID
	model  string
	fields map[int][]point
}

// collectGPUs groups the DCGM series by GPU. Several series of one GPU and
// field (the exporter's pod labels change when the pod using the GPU does)
// are merged. A series without a UUID or gpu label cannot be told apart
// from other GPUs' and is left out.
func collectGPUs(d *telemetryData) []*gpuData {
	byKey := map[string]*gpuData{}
	var order []*gpuData
	for i, f := range TelemetryFields {
		for _, s := range d.byName[f.DCGM] {
			id, ok := gpuIDOf(s)
			if !ok {
				d.notes = append(d.notes, "a "+f.DCGM+" series from "+s.source+" has neither a UUID nor a gpu label and was ignored")
				continue
			}
			g := byKey[id.Key()]
			if g == nil {
				g = &gpuData{id: id, fields: map[int][]point{}}
				byKey[id.Key()] = g
				order = append(order, g)
			}
			if g.model == "" {
				g.model = s.label("modelName")
			}
			g.fields[i] = mergePoints(g.fields[i], s.points)
		}
	}
	sortGPUs(order)
	return order
}

// reduceGPUs computes each GPU's field statistics and energy; simulated
// says the GPUs are the simulator's.
func reduceGPUs(gpus []*gpuData, w TelemetryWindow, simulated bool) []GPUTelemetry {
	sources := map[string]bool{}
	for _, g := range gpus {
		sources[g.id.Source] = true
	}
	out := make([]GPUTelemetry, 0, len(gpus))
	for _, g := range gpus {
		t := GPUTelemetry{ID: g.id, GenAIPerfKey: GenAIPerfGPUKey(g.id, len(sources) > 1), ModelName: g.model, Simulated: simulated}
		if simulated {
			t.GenAIPerfKey += simulatedLabel
		}
		for i, f := range TelemetryFields {
			in := inWindow(g.fields[i], w)
			if len(in) == 0 {
				continue
			}
			stats := NewDistribution(values(in))
			if f.Scale != 1 {
				stats = stats.Scaled(f.Scale)
			}
			t.Fields = append(t.Fields, GPUField{TelemetryField: f, Stats: stats})
		}
		t.Energy, t.EnergyResets = gpuEnergy(g, w)
		if t.Energy.OK {
			t.AveragePower = knownValue(t.Energy.Value / w.seconds())
		} else {
			t.AveragePower = unknownValue("%s", t.Energy.Why)
		}
		out = append(out, t)
	}
	return out
}

// gpuNotes words the counter resets seen.
func gpuNotes(gpus []GPUTelemetry) []string {
	var notes []string
	for _, g := range gpus {
		if g.EnergyResets > 0 {
			notes = append(notes, "the energy counter of "+g.ID.String()+" went back during the point (GPU reset or driver reload); counted as a restart from zero")
		}
	}
	return notes
}
