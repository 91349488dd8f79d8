package metrics

import (
	"cmp"
	"slices"
	"strconv"
)

// GPUID names one GPU (or MIG instance) of one scraped exporter. GenAI-Perf
// merges samples by the gpu label alone, so GPU "0" of two hosts becomes
// one GPU; llmbench keys by the source and the GPU's UUID instead, falling
// back to the gpu index only for an exporter that sends no UUID.
type GPUID struct {
	// Source is the exporter's host:port (TelemetrySample.Source).
	Source string
	// UUID is DCGM's UUID label ("GPU-8c16e996-..."), "" when absent.
	UUID string
	// Index is DCGM's gpu label ("0"), "" when absent.
	Index string
	// Instance is the GPU_I_ID label of a MIG instance, "" for a whole
	// GPU: instances of one GPU share its UUID and gpu index but are
	// measured apart.
	Instance string
}

// gpuIDOf reads a DCGM series' GPU labels; ok is false when it has neither
// a UUID nor a gpu index.
func gpuIDOf(s *telemetrySeries) (id GPUID, ok bool) {
	id = GPUID{Source: s.source, UUID: s.label("UUID"), Index: s.label("gpu"), Instance: s.label("GPU_I_ID")}
	return id, id.UUID != "" || id.Index != ""
}

// Key identifies the GPU across sources: source, then UUID or else
// "gpu" + index, then "mig" + instance for a MIG instance.
func (id GPUID) Key() string {
	k := id.Source + "/"
	if id.UUID != "" {
		k += id.UUID
	} else {
		k += "gpu" + id.Index
	}
	if id.Instance != "" {
		k += "/mig" + id.Instance
	}
	return k
}

// String names the GPU for people: "host:9400 GPU 0 (GPU-8c16…)".
func (id GPUID) String() string {
	s := id.Source + " GPU " + id.Index
	if id.Index == "" {
		s = id.Source + " GPU " + id.UUID
	} else if id.UUID != "" {
		s += " (" + id.UUID + ")"
	}
	if id.Instance != "" {
		s += " MIG instance " + id.Instance
	}
	return s
}

// GenAIPerfGPUKey is the GPU's key in GenAI-Perf's outputs, as issue 12
// decided: "gpu0" (the key of GenAI-Perf's CSV GPU tables and of its
// docs; its current DCGM collector writes the bare label "0" in
// telemetry_stats). With several sources the key is prefixed by the
// source, "host:9400/gpu0", so that the GPUs GenAI-Perf would merge stay
// apart. A GPU without a gpu label is keyed by its UUID; a MIG instance
// gets "-mig" and its instance id after the GPU's key.
func GenAIPerfGPUKey(id GPUID, multiSource bool) string {
	k := "gpu" + id.Index
	if id.Index == "" {
		k = id.UUID
	}
	if id.Instance != "" {
		k += "-mig" + id.Instance
	}
	if multiSource {
		k = id.Source + "/" + k
	}
	return k
}

// sortGPUs orders GPUs by source, then numeric gpu index (so "10" follows
// "9"), then UUID and instance.
func sortGPUs(gpus []*gpuData) {
	slices.SortFunc(gpus, func(a, b *gpuData) int {
		x, y := a.id, b.id
		if c := cmp.Compare(x.Source, y.Source); c != 0 {
			return c
		}
		if c := compareIndex(x.Index, y.Index); c != 0 {
			return c
		}
		if c := cmp.Compare(x.UUID, y.UUID); c != 0 {
			return c
		}
		return compareIndex(x.Instance, y.Instance)
	})
}

// compareIndex compares decimal indexes numerically, others as text after
// them.
func compareIndex(a, b string) int {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	switch {
	case errA == nil && errB == nil:
		return cmp.Compare(x, y)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return cmp.Compare(a, b)
}
