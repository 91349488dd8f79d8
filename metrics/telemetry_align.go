package metrics

import "slices"

// alignedValues combines several series into one value per scrape: at each
// instant any of them was sampled (inside the window), each series
// contributes its latest value at or before that instant, and combine
// reduces those to one. The samples of one scrape share a Time per source,
// so for a single exporter this is exactly "the sum over GPUs of each
// scrape"; across exporters, which are scraped at slightly different
// instants, each holds its last value until its next scrape.
//
// A value held longer than 1.5 times its series' median sampling interval
// is stale (its source stopped answering, or the series vanished), and an
// instant where any series has no fresh value is left out rather than
// combined from fewer series: a total of seven GPUs is not the power of
// eight.
func alignedValues(list [][]point, combine func([]float64) float64) []float64 {
	if len(list) == 0 {
		return nil
	}
	var times []int64
	maxAge := make([]int64, len(list))
	for i, s := range list {
		maxAge[i] = staleAfter(s)
		for _, p := range s {
			times = append(times, p.t)
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	next := make([]int, len(list))
	vals := make([]float64, len(list))
	var out []float64
	for _, t := range times {
		complete := true
		for i, s := range list {
			for next[i] < len(s) && s[next[i]].t <= t {
				next[i]++
			}
			if next[i] == 0 || t-s[next[i]-1].t > maxAge[i] {
				complete = false
				continue
			}
			vals[i] = s[next[i]-1].v
		}
		if complete {
			out = append(out, combine(vals))
		}
	}
	return out
}

// staleAfter is how long a series' value may be held: 1.5 times its median
// interval between samples, 0 (its own instants only) with one sample.
func staleAfter(s []point) int64 {
	if len(s) < 2 {
		return 0
	}
	gaps := make([]int64, len(s)-1)
	for i := range gaps {
		gaps[i] = s[i+1].t - s[i].t
	}
	slices.Sort(gaps)
	return gaps[len(gaps)/2] * 3 / 2
}

func sumOf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

func meanOf(v []float64) float64 { return sumOf(v) / float64(len(v)) }

func maxOf(v []float64) float64 { return slices.Max(v) }

// gpuTotals are the per-scrape total power (W) and mean utilisation (%)
// across GPUs, over the window; nil when no GPU reported the field.
func gpuTotals(gpus []*gpuData, w TelemetryWindow) (power, utilization *Distribution) {
	field := func(idx int, combine func([]float64) float64) *Distribution {
		var list [][]point
		for _, g := range gpus {
			if in := inWindow(g.fields[idx], w); len(in) > 0 {
				list = append(list, in)
			}
		}
		return NewDistribution(alignedValues(list, combine))
	}
	return field(fieldPower, sumOf), field(fieldUtilization, meanOf)
}
