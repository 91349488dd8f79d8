package metrics

import (
	"math"
	"slices"
)

// DisagreeSpread is how far apart repeats of one point may be before the
// point is flagged: the design article measures 5–10% run-to-run variance
// in tail latency under identical conditions, so repeats further apart
// than 10% say the point is not yet a number.
const DisagreeSpread = 0.10

// RepeatStat summarises one metric over the repeats of one sweep point.
// One run is a data point; three are a number, and this is that number
// with its uncertainty.
type RepeatStat struct {
	// N is the number of repeats that measured the metric.
	N int
	// Mean is the arithmetic mean of the repeats; Stddev their sample
	// standard deviation (n − 1: the repeats estimate the spread of runs in
	// general, not just describe themselves). Stddev is NaN for N < 2.
	Mean, Stddev float64
	// CILow and CIHigh bound the 95% confidence interval of the mean,
	// mean ± t(0.975, N−1) · Stddev / √N with Student's t, the right
	// critical value for a handful of repeats. NaN for N < 2: one run says
	// nothing about its own uncertainty.
	CILow, CIHigh float64
	// Spread is (max − min) / |mean|: how far apart the most distant
	// repeats are, relative to their mean. 0 when all agree, +Inf when
	// they differ around a zero mean.
	Spread float64
	// Disagree is true when Spread > DisagreeSpread: the two most distant
	// repeats differ by more than 10% of the mean. The range is used, not
	// the stddev, because it is what a reader comparing runs sees and it
	// needs no distributional assumption for three values.
	Disagree bool
}

// AcrossRepeats computes the statistics of one metric's values, one per
// repeat of a point, in the metric's native unit. Values should be finite:
// a NaN makes every statistic NaN. No values give N = 0 and NaN
// statistics.
func AcrossRepeats(values []float64) RepeatStat {
	nan := math.NaN()
	n := len(values)
	st := RepeatStat{N: n, Mean: nan, Stddev: nan, CILow: nan, CIHigh: nan, Spread: nan}
	if n == 0 {
		return st
	}
	st.Mean = mean(values)
	st.Spread = relativeRange(values, st.Mean)
	st.Disagree = st.Spread > DisagreeSpread
	if n < 2 {
		return st
	}
	st.Stddev = sampleStddev(values, st.Mean)
	half := studentTQuantile(0.975, float64(n-1)) * st.Stddev / math.Sqrt(float64(n))
	st.CILow, st.CIHigh = st.Mean-half, st.Mean+half
	return st
}

func mean(values []float64) float64 {
	sum := 0.0
	for _, v := range values {
		sum += v
	}
	return sum / float64(len(values))
}

// sampleStddev is the n − 1 standard deviation, by two passes so that a
// large mean does not swallow a small spread.
func sampleStddev(values []float64, mean float64) float64 {
	ss := 0.0
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss / float64(len(values)-1))
}

// relativeRange is (max − min) / |mean|, 0 for identical values even at a
// zero mean (an error rate of 0 in every repeat agrees perfectly).
func relativeRange(values []float64, mean float64) float64 {
	lo, hi := values[0], values[0]
	for _, v := range values[1:] {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if hi == lo {
		return 0
	}
	return (hi - lo) / math.Abs(mean)
}

// headline are the metrics repeats are summarised on: the sweep table's
// columns and the numbers a capacity claim is made of. Each is read the
// way a gate on it would read it, so "ttft.p99" means the same thing in a
// gate, a repeat statistic and a report.
var headline = []Gate{
	{Metric: TTFT, Stat: "p50"},
	{Metric: TTFT, Stat: "p99"},
	{Metric: ITL, Stat: "p50"},
	{Metric: ITL, Stat: "p99"},
	{Metric: RequestLatency, Stat: "p99"},
	{Metric: OutputTokenThroughput},
	{Metric: RequestThroughput},
	{Metric: RequestGoodput},
	{Metric: ErrorRate},
}

// HeadlineNames lists the headline metrics in the order reports show
// them: ttft.p50, ttft.p99, itl.p50, itl.p99, request_latency.p99,
// output_token_throughput, request_throughput, request_goodput,
// error_rate. Maps have no order; reports need one.
func HeadlineNames() []string {
	names := make([]string, len(headline))
	for i, g := range headline {
		names[i] = g.Name()
	}
	return names
}

// Headline is the headline metrics as gates on them read them (metric
// and statistic), in HeadlineNames' order, for reports that need a
// headline metric's unit or its comparison.
func Headline() []Gate { return slices.Clone(headline) }

// HeadlineMetric is the metric of a headline name ("ttft.p99" is ttft);
// nil for a name that is not a headline's.
func HeadlineMetric(name string) *Metric {
	for _, g := range headline {
		if g.Name() == name {
			return g.Metric
		}
	}
	return nil
}

// HeadlineValues reads the headline metrics of one run, in native units
// (ns for times, per second for throughputs, a ratio for error_rate),
// keyed by HeadlineNames' names. A metric the run did not measure (no
// goodput SLOs, no request with two chunks for itl, no requests for
// error_rate) is absent rather than zero, so it cannot drag a mean down.
func HeadlineValues(s *Summary) map[string]float64 {
	values := make(map[string]float64, len(headline))
	for _, g := range headline {
		if v, err := g.Measure(s); err == nil {
			values[g.Name()] = v
		}
	}
	return values
}

// HeadlineRepeats summarises each headline metric over the repeats of one
// point, each over the repeats that measured it (N says how many). A
// metric no repeat measured is absent.
func HeadlineRepeats(runs []*Summary) map[string]RepeatStat {
	collected := make(map[string][]float64, len(headline))
	for _, s := range runs {
		for name, v := range HeadlineValues(s) {
			collected[name] = append(collected[name], v)
		}
	}
	stats := make(map[string]RepeatStat, len(collected))
	for name, values := range collected {
		stats[name] = AcrossRepeats(values)
	}
	return stats
}
