package runtime

import (
	"hash/fnv"
	"math"
	"slices"

	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/plan"
)

// pointDataset is the dataset a point draws its prompts from: with
// PointSeeds, the experiment's dataset reseeded for the point (SPEC §12:
// each sweep point draws fresh prompts, so no point is measured on the
// prefix cache an earlier one filled); otherwise src itself, the same
// prompts at every point. Repeats of a point share its job, so they send
// the same prompts.
func pointDataset(e *plan.Experiment, src dataset.Source, params plan.Params) dataset.Source {
	if !e.PointSeeds {
		return src
	}
	return dataset.Reseed(src, PointSeed(params))
}

// PointSeed derives a point's seeds from the scenario's: each seed mixed
// with a hash of the point's parameters (its load and swept values, by
// name). It depends on what the point is, not on when it ran, so a
// resumed sweep, a shard and a baseline's same point all draw the same
// prompts, and an adaptive sweep's point drawn twice draws them alike.
func PointSeed(params plan.Params) func(uint64) uint64 {
	h := fnv.New64a()
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	slices.Sort(names)
	var buf [8]byte
	for _, name := range names {
		h.Write([]byte(name))
		bits := math.Float64bits(params[name] + 0) // +0: -0 and 0 are one point
		for i := range buf {
			buf[i] = byte(bits >> (8 * i))
		}
		h.Write(buf[:])
	}
	sum := h.Sum64()
	return func(seed uint64) uint64 { return splitMix64(seed ^ sum) }
}

// splitMix64 is SplitMix64's finalizer: it spreads nearby inputs (seed 0
// and 1, concurrency 4 and 5) over unrelated outputs.
func splitMix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
