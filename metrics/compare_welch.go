package metrics

import (
	"errors"
	"math"
)

// Method names how a ratio interval was obtained.
type Method string

// The comparison methods.
const (
	// MethodWelch: Welch's t on the log of per-repeat values.
	MethodWelch Method = "welch-log-t"
	// MethodBlockBootstrap: moving-block bootstrap of per-request values.
	MethodBlockBootstrap Method = "moving-block-bootstrap"
)

// RatioInterval is the ratio candidate/baseline of one statistic with its
// two-sided confidence interval.
type RatioInterval struct {
	Method Method
	// Baseline and Candidate are the statistic on each side (the mean of
	// the repeats for MethodWelch); Ratio is the point estimate.
	Baseline, Candidate float64
	Ratio, Low, High    float64
	Confidence          float64
	// DF is Welch's degrees of freedom (MethodWelch only).
	DF float64
	// BlockLengths are the block lengths used for the baseline and the
	// candidate, Resamples the number of bootstrap resamples
	// (MethodBlockBootstrap only).
	BlockLengths [2]int
	Resamples    int
	// TailBounded marks a bootstrap interval widened to the
	// order-statistic bounds of a percentile whose tail holds too few
	// values to resample (BootstrapRatio).
	TailBounded bool

	// logDiff and se are Welch's mean log difference and its standard
	// error; sortedRatios the bootstrap distribution of the ratio.
	logDiff, se  float64
	sortedRatios []float64
}

// PAbove is the p-value of H0: ratio ≤ c against ratio > c, doubled so
// that it agrees with the equal-tailed interval: PAbove(c) ≤ α exactly
// when the interval at confidence 1 − α lies above c (Low > c), up to the
// bootstrap's discreteness. It is a valid, conservative (level α/2)
// p-value for that one-sided hypothesis. For Welch it is
// 2·P(T_df ≥ (d − ln c)/se); for the bootstrap 2·(fraction of resampled
// ratios ≤ c); capped at 1.
func (ri RatioInterval) PAbove(c float64) float64 {
	switch {
	case ri.TailBounded && ri.Low <= c:
		return 1 // the widened interval does not make the claim: no p-value below α
	case ri.sortedRatios != nil:
		return math.Min(1, 2*fractionAtMost(ri.sortedRatios, c))
	case ri.se > 0:
		return math.Min(1, 2*tailAtLeast((ri.logDiff-math.Log(c))/ri.se, ri.DF))
	case ri.Ratio > c:
		return 0
	}
	return 1
}

// PBelow is PAbove mirrored: the doubled p-value of H0: ratio ≥ c, ≤ α
// exactly when the interval lies below c (High < c).
func (ri RatioInterval) PBelow(c float64) float64 {
	switch {
	case ri.TailBounded && ri.High >= c:
		return 1
	case ri.sortedRatios != nil:
		return math.Min(1, 2*fractionAtLeast(ri.sortedRatios, c))
	case ri.se > 0:
		return math.Min(1, 2*tailAtLeast((math.Log(c)-ri.logDiff)/ri.se, ri.DF))
	case ri.Ratio < c:
		return 0
	}
	return 1
}

// tailAtLeast is P(T_df ≥ t) for any t.
func tailAtLeast(t, df float64) float64 {
	if t >= 0 {
		return upperTailT(t, df)
	}
	return 1 - upperTailT(-t, df)
}

// exactRatio is the interval of a ratio known without noise: identical
// zero values on both sides, ratio 1, no width.
func exactRatio(m Method, baseline, candidate, confidence float64) RatioInterval {
	r := safeRatio(baseline, candidate)
	return RatioInterval{Method: m, Baseline: baseline, Candidate: candidate,
		Ratio: r, Low: r, High: r, Confidence: confidence, logDiff: math.Log(r)}
}

// ErrNonPositive is returned by WelchRatio for a repeat value ≤ 0, which
// has no logarithm.
var ErrNonPositive = errors.New("a repeat value is not positive, so has no logarithm")

// WelchRatio is the confidence interval of the ratio of a statistic
// between candidate and baseline from per-repeat values (each repeat's
// ttft.p99, say), at least two per side, all positive.
//
// Method: x_i = ln baseline_i (n₁ values), y_j = ln candidate_j (n₂);
// d = ȳ − x̄; se = √(s₁²/n₁ + s₂²/n₂) with n − 1 sample variances; Welch–
// Satterthwaite degrees of freedom
//
//	df = se⁴ / ((s₁²/n₁)²/(n₁−1) + (s₂²/n₂)²/(n₂−1));
//
// ratio = exp(d), interval exp(d ± t(1−α/2, df)·se) with Student's t.
// The ratio is of geometric means, which for repeats a few percent apart
// equals the ratio of arithmetic means to well under their noise.
//
// Assumptions: repeats are independent runs (the between-repeat spread
// is the honest noise, including server state that per-request values
// share) and the log values are roughly normal; logs make a relative
// change symmetric and keep the interval positive. Identical repeats on
// both sides (se = 0) give a zero-width interval.
func WelchRatio(baseline, candidate []float64, confidence float64) (RatioInterval, error) {
	if len(baseline) < 2 || len(candidate) < 2 {
		return RatioInterval{}, errors.New("welch needs at least two repeats per side")
	}
	x, okX := logs(baseline)
	y, okY := logs(candidate)
	if !okX || !okY {
		return RatioInterval{}, ErrNonPositive
	}
	ri := RatioInterval{Method: MethodWelch, Confidence: confidence,
		Baseline: mean(baseline), Candidate: mean(candidate)}
	mx, my := mean(x), mean(y)
	vx := sampleVariance(x, mx) / float64(len(x))
	vy := sampleVariance(y, my) / float64(len(y))
	ri.logDiff = my - mx
	ri.se = math.Sqrt(vx + vy)
	ri.Ratio = math.Exp(ri.logDiff)
	if ri.se == 0 {
		ri.Low, ri.High, ri.DF = ri.Ratio, ri.Ratio, math.Inf(1)
		return ri, nil
	}
	ri.DF = (vx + vy) * (vx + vy) / (vx*vx/float64(len(x)-1) + vy*vy/float64(len(y)-1))
	half := studentTQuantile(1-(1-confidence)/2, ri.DF) * ri.se
	ri.Low, ri.High = math.Exp(ri.logDiff-half), math.Exp(ri.logDiff+half)
	return ri, nil
}

// logs is the natural log of every value; ok is false if one is ≤ 0.
func logs(values []float64) ([]float64, bool) {
	out := make([]float64, len(values))
	for i, v := range values {
		if !(v > 0) {
			return nil, false
		}
		out[i] = math.Log(v)
	}
	return out, true
}

// sampleVariance is the n − 1 variance around mean.
func sampleVariance(values []float64, mean float64) float64 {
	sd := sampleStddev(values, mean)
	return sd * sd
}
