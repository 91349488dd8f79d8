package calibrate

import (
	"math"
	"slices"
)

// Spread is how much a metric's values differ from run to run, on the
// log scale the judge compares ratios on.
type Spread struct {
	Median, Min, Max float64
	// SD is the standard deviation of ln v, Robust its counterpart
	// 1.4826 × the median absolute deviation (the SD without outliers).
	SD, Robust float64
}

// LogSpread is the spread of ln v: its standard deviation and its robust
// counterpart 1.4826 × the median absolute deviation, with the median,
// smallest and largest values. It needs two values or more for an SD
// (NaN otherwise).
func LogSpread(v []float64) Spread {
	if len(v) == 0 {
		return Spread{Median: math.NaN(), Min: math.NaN(), Max: math.NaN(), SD: math.NaN(), Robust: math.NaN()}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	logs := make([]float64, len(s))
	for i, x := range s {
		logs[i] = math.Log(x)
	}
	m := Median(logs)
	var sum, sq float64
	dev := make([]float64, len(logs))
	for i, l := range logs {
		sum += l
		dev[i] = math.Abs(l - m)
	}
	mean := sum / float64(len(logs))
	for _, l := range logs {
		sq += (l - mean) * (l - mean)
	}
	return Spread{Median: math.Exp(m), Min: s[0], Max: s[len(s)-1],
		SD: math.Sqrt(sq / float64(len(logs)-1)), Robust: 1.4826 * Median(dev)}
}
