package metrics

import (
	"math"
	"slices"
)

// fixedPercentiles are the percentiles GenAI-Perf reports, in its order.
var fixedPercentiles = [...]float64{1, 5, 10, 25, 50, 75, 90, 95, 99}

// NewDistribution reduces values to GenAI-Perf's statistics, computed the
// way numpy computes them (see numpy.go), so a report built from it prints
// the same digits GenAI-Perf prints. Avg and Std depend on the order of
// values, as numpy's do: pass them in request order. It returns nil for no
// values, the "metric absent" of Summary. Values must not be NaN.
func NewDistribution(values []float64) *Distribution {
	if len(values) == 0 {
		return nil
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return distributionOf(values, sorted)
}

// sortedDistribution is NewDistribution of values in ascending order,
// which it keeps as its sorted values, not a copy: a run's pooled chunk
// gaps come sorted, and are millions of values.
func sortedDistribution(sorted []float64) *Distribution {
	if len(sorted) == 0 {
		return nil
	}
	return distributionOf(sorted, sorted)
}

// distributionOf is the distribution of values, given them sorted.
func distributionOf(values, sorted []float64) *Distribution {
	mean, std := numpyMeanStd(values)
	d := &Distribution{
		Count:  len(values),
		Avg:    mean,
		Min:    sorted[0],
		Max:    sorted[len(sorted)-1],
		Std:    std,
		sorted: sorted,
	}
	for i, field := range d.percentileFields() {
		*field = numpyPercentile(sorted, fixedPercentiles[i])
	}
	return d
}

// percentileFields points at the fields holding fixedPercentiles, in order.
func (d *Distribution) percentileFields() [len(fixedPercentiles)]*float64 {
	return [...]*float64{&d.P1, &d.P5, &d.P10, &d.P25, &d.P50, &d.P75, &d.P90, &d.P95, &d.P99}
}

// Percentile returns the p-th percentile (0 ≤ p ≤ 100, any fraction, such
// as 99.9), numpy-linear, in the distribution's unit: a scaled distribution
// interpolates in the original unit and then scales, exactly as its fixed
// percentiles were obtained, so Percentile(99) always equals P99. A
// distribution without its values (decoded from JSON, say) can still answer
// for 0, 100 and the fixed percentiles. Anything else, a nil receiver or p
// outside [0, 100] gives NaN.
func (d *Distribution) Percentile(p float64) float64 {
	switch {
	case d == nil || !(p >= 0 && p <= 100):
		return math.NaN()
	case p == 0:
		return d.Min
	case p == 100:
		return d.Max
	case len(d.sorted) == 0 && d.hist == nil:
		if i := slices.Index(fixedPercentiles[:], p); i >= 0 {
			return *d.percentileFields()[i]
		}
		return math.NaN()
	}
	var v float64
	if d.hist != nil {
		v = d.hist.percentile(p)
	} else {
		v = numpyPercentile(d.sorted, p)
	}
	for _, f := range d.scales {
		v *= f
	}
	return v
}

// Scaled returns a copy with every statistic (avg, min, max, std and each
// percentile) multiplied by f: GenAI-Perf's scale_data, which turns ns into
// ms with v*1e-6 after the statistics are computed. Scaling the statistics,
// not the values, is what reproduces its digits (p90 of [4e6, 5e6] ns is
// 4.8999999999999995 ms, not 4.9). Scaled of nil is nil, so reports can
// scale an absent metric without checking.
func (d *Distribution) Scaled(f float64) *Distribution {
	if d == nil {
		return nil
	}
	s := *d
	s.Avg, s.Min, s.Max, s.Std = d.Avg*f, d.Min*f, d.Max*f, d.Std*f
	from := d.percentileFields()
	for i, field := range s.percentileFields() {
		*field = *from[i] * f
	}
	s.scales = append(slices.Clone(d.scales), f)
	return &s
}
