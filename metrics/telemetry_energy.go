package metrics

import (
	"fmt"
	"strings"
	"time"
)

// A point's energy is read from DCGM's cumulative energy counter, not
// integrated from power samples: the counter is the driver's own integral
// of the board's power, accumulated far more often than a 0.33 s scrape,
// whose power samples miss every spike between them. The counter is linearly interpolated at
// the window's start and end between the samples around each edge, and the
// difference is the energy. Extrapolating past the first or last sample is
// not allowed: without a sample on both sides of an edge the energy is
// unknown, and the reason says which edge.

// counterDelta is the increase of a cumulative counter from instant from to
// instant to (ns), each end linearly interpolated between the samples
// around it. A value below its predecessor is a reset (the counter
// restarted from zero, Prometheus's rule): the values after it are offset
// by the value before it, and resets counts them. why, when not "", says
// why the increase is unknown.
func counterDelta(points []point, from, to int64) (delta float64, resets int, why string) {
	switch {
	case len(points) == 0:
		return 0, 0, "no samples"
	case to < from:
		return 0, 0, "the window ends before it starts"
	}
	first, last := points[0], points[len(points)-1]
	switch {
	case first.t > from:
		return 0, 0, fmt.Sprintf("no sample at or before the point's start (the first came %s after it)", durationText(first.t-from))
	case last.t < to:
		return 0, 0, fmt.Sprintf("no sample at or after the point's end (the last came %s before it)", durationText(to-last.t))
	}
	// lo is the last sample at or before from, hi the first at or after
	// to. Values are taken relative to points[lo], which keeps the large
	// counter values (DCGM's is in mJ since boot) out of the subtraction.
	lo, hi := 0, len(points)-1
	for lo+1 < len(points) && points[lo+1].t <= from {
		lo++
	}
	for hi > 0 && points[hi-1].t >= to {
		hi--
	}
	rel := make([]float64, hi-lo+1)
	for k := 1; k < len(rel); k++ {
		step := points[lo+k].v - points[lo+k-1].v
		if step < 0 {
			resets++
			step = points[lo+k].v
		}
		rel[k] = rel[k-1] + step
	}
	at := func(t int64) float64 {
		k := 0
		for k+1 < len(rel) && points[lo+k+1].t <= t {
			k++
		}
		if k+1 == len(rel) {
			return rel[k]
		}
		a, b := points[lo+k], points[lo+k+1]
		return rel[k] + (rel[k+1]-rel[k])*(float64(t-a.t)/float64(b.t-a.t))
	}
	return at(to) - at(from), resets, ""
}

// durationText renders ns as a short duration ("1.2s", "330ms").
func durationText(ns int64) string {
	return time.Duration(ns).Round(time.Millisecond).String()
}

// gpuEnergy is one GPU's energy over the window, in J.
func gpuEnergy(g *gpuData, w TelemetryWindow) (TelemetryValue, int) {
	pts := g.fields[fieldEnergy]
	if len(pts) == 0 {
		return unknownValue("%s exported no %s", g.id, TelemetryFields[fieldEnergy].DCGM), 0
	}
	mJ, resets, why := counterDelta(pts, w.Start, w.End)
	if why != "" {
		return unknownValue("energy of %s: %s", g.id, why), 0
	}
	return knownValue(mJ / 1e3), resets
}

// totalEnergy is Σ over GPUs; unknown when there is no GPU or any GPU's
// energy is unknown, for a sum missing a GPU would understate the point.
func totalEnergy(gpus []GPUTelemetry) TelemetryValue {
	if len(gpus) == 0 {
		return unknownValue("no GPU telemetry (no DCGM exporter among the telemetry URLs)")
	}
	var sum float64
	var why []string
	for _, g := range gpus {
		if !g.Energy.OK {
			why = append(why, g.Energy.Why)
			continue
		}
		sum += g.Energy.Value
	}
	if len(why) > 0 {
		return unknownValue("%s", strings.Join(why, "; "))
	}
	return knownValue(sum)
}
