package metrics

import (
	"math"
	"slices"
)

// The statistics engines of the other tools, each as its source computes
// it (docs/metrics.md names the functions).

// vllmStatsOf is vLLM's mean, median, std and percentiles of a
// distribution, multiplied by scale after they are computed (vLLM
// computes in seconds and multiplies by 1000). It is all zeros for nil,
// vLLM's `np.mean(x or 0)` of an empty list.
func vllmStatsOf(d *Distribution, scale float64) VLLMStats {
	if d == nil {
		return VLLMStats{}
	}
	return VLLMStats{
		Count: d.Count, Mean: d.Avg * scale, Median: d.P50 * scale, Std: d.Std * scale,
		P25: d.P25 * scale, P50: d.P50 * scale, P75: d.P75 * scale,
		P90: d.P90 * scale, P95: d.P95 * scale, P99: d.P99 * scale,
	}
}

// pandasStats is what LLMPerf's metrics_summary reports of a pandas
// Series: mean, min, max, the sample standard deviation (ddof=1, NaN —
// here nil — below two values) and linear quantiles. Values are taken
// in the order given.
func pandasStats(values []float64) LLMPerfStats {
	if len(values) == 0 {
		return LLMPerfStats{}
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	n := float64(len(values))
	mean := numpySum(values) / n
	st := LLMPerfStats{Count: len(values), Mean: mean, Min: sorted[0], Max: sorted[len(sorted)-1],
		P25: numpyPercentile(sorted, 25), P50: numpyPercentile(sorted, 50), P75: numpyPercentile(sorted, 75),
		P90: numpyPercentile(sorted, 90), P95: numpyPercentile(sorted, 95), P99: numpyPercentile(sorted, 99)}
	if len(values) >= 2 {
		sq := make([]float64, len(values))
		for i, v := range values {
			d := mean - v
			sq[i] = float64(d * d)
		}
		std := math.Sqrt(numpySum(sq) / (n - 1))
		st.Stddev = &std
	}
	return st
}

// guidePercentiles are GuideLLM's Percentiles fields, as probabilities.
var guidePercentiles = [...]float64{0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999}

// guideEpsilon is GuideLLM's probability tolerance (epsilon=1e-6).
const guideEpsilon = 1e-6

// weightedDist is GuideLLM's DistributionSummary.from_values of
// (value, weight) pairs: equal values merged, zero weights dropped, the
// weights normalised into a probability mass function, and from it the
// weighted mean, variance and mode and the percentiles as the smallest
// value whose cumulative probability reaches p (numpy searchsorted on the
// cumsum: no interpolation). count < 0 means GuideLLM's default, the sum
// of the weights rounded.
func weightedDist(values, weights []float64, count int) GuideLLMDist {
	if count < 0 {
		count = int(math.RoundToEven(numpySum(weights)))
	}
	vals, probs := weightedPMF(values, weights)
	if len(vals) == 0 {
		return GuideLLMDist{Count: count}
	}
	prod := make([]float64, len(vals))
	for i := range vals {
		prod[i] = float64(vals[i] * probs[i])
	}
	mean := numpySum(prod)
	mode := 0
	for i := range vals {
		d := vals[i] - mean
		prod[i] = float64(float64(d*d) * probs[i])
		if probs[i] > probs[mode] {
			mode = i
		}
	}
	variance := numpySum(prod)
	d := GuideLLMDist{Mean: mean, Mode: vals[mode], Variance: variance, StdDev: math.Sqrt(variance),
		Min: vals[0], Max: vals[len(vals)-1], Count: count, TotalSum: mean * float64(count)}
	cdf := make([]float64, len(probs))
	var c float64
	for i, p := range probs {
		c += p
		cdf[i] = c
	}
	fields := [...]*float64{&d.P001, &d.P01, &d.P05, &d.P10, &d.P25, &d.P50, &d.P75, &d.P90, &d.P95, &d.P99, &d.P999}
	for i, p := range guidePercentiles {
		j, _ := slices.BinarySearch(cdf, p) // first index with cdf ≥ p: searchsorted side="left"
		*fields[i] = vals[min(j, len(vals)-1)]
	}
	d.Median = d.P50
	return d
}

// weightedPMF sorts the values, merges equal ones by summing their
// weights, drops the values left with no weight and divides the weights
// by their total (all weights 1 when the total is below GuideLLM's
// epsilon).
func weightedPMF(values, weights []float64) (vals, probs []float64) {
	idx := make([]int, len(values))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case values[a] < values[b]:
			return -1
		case values[a] > values[b]:
			return 1
		}
		return 0
	})
	var ws []float64
	for _, i := range idx {
		if n := len(vals); n > 0 && vals[n-1] == values[i] {
			ws[n-1] += weights[i]
			continue
		}
		vals, ws = append(vals, values[i]), append(ws, weights[i])
	}
	kept := 0
	for i := range vals {
		if ws[i] > 0 {
			vals[kept], ws[kept] = vals[i], ws[i]
			kept++
		}
	}
	vals, ws = vals[:kept], ws[:kept]
	total := numpySum(ws)
	if total <= guideEpsilon {
		for i := range ws {
			ws[i] = 1
		}
		total = float64(len(ws))
	}
	probs = make([]float64, len(ws))
	for i, w := range ws {
		probs[i] = w / total
	}
	return vals, probs
}
