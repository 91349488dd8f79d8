package metrics

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
)

// BootstrapOptions configure BootstrapRatio.
type BootstrapOptions struct {
	// Resamples is B, the number of bootstrap resamples (2000 by default).
	Resamples int
	// Seed fixes the random stream, so a comparison is reproducible.
	Seed uint64
	// BlockLength is the block length for both sides; 0 chooses it per
	// side by BlockLength's rule, 1 is the ordinary iid bootstrap.
	BlockLength int
}

// DefaultBootstrapOptions: B = 2000, seed 1, automatic block length.
func DefaultBootstrapOptions() BootstrapOptions {
	return BootstrapOptions{Resamples: 2000, Seed: 1}
}

// BootstrapRatio bounds the ratio stat(candidate)/stat(baseline) of two
// runs' time-ordered values by a moving-block bootstrap (Künsch 1989) of
// each side independently, each bound one-sided at level.
//
// Method: each side of n values is cut into the n − L + 1 overlapping
// blocks of L consecutive values; a resample concatenates ⌈n/L⌉ blocks
// drawn uniformly with replacement, truncated to n values. The statistic
// (stat: avg, min, max, std, or a percentile with numpy's linear
// interpolation) is recomputed on a resample of each side and their ratio
// taken (0/0 = 1); this is done B times. The lower bound is the 1 − level
// quantile of the B ratios, the upper bound the level quantile (linear
// interpolation); the p-value of "the ratio is above c" is the share of
// resampled ratios at or below c. The point estimate is the ratio on the
// original data.
//
// Assumptions: within a run the values are stationary and dependent only
// over a short range (batching, queueing), which blocks of length L keep;
// the two runs are independent. Limits: a shift in the middle of a run
// (warm-up, a noisy neighbour) is not noise the bootstrap can see, and
// neither is the drift from one run to the next. The judge bounds
// percentiles by order statistics instead, which need no resampling.
func BootstrapRatio(baseline, candidate []float64, stat string, opt BootstrapOptions, level float64) (RatioInterval, error) {
	if len(baseline) == 0 || len(candidate) == 0 {
		return RatioInterval{}, errors.New("bootstrap needs values on both sides")
	}
	statistic, err := statisticFunc(stat)
	if err != nil {
		return RatioInterval{}, err
	}
	opt = withBootstrapDefaults(opt)
	ri := RatioInterval{Method: MethodBlockBootstrap, Confidence: level, Resamples: opt.Resamples}
	ri.Baseline = statistic(slices.Clone(baseline))
	ri.Candidate = statistic(slices.Clone(candidate))
	ri.Ratio = safeRatio(ri.Baseline, ri.Candidate)
	ri.BlockLengths = [2]int{opt.blockLength(baseline), opt.blockLength(candidate)}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6c6c6d62656e6368))
	base := newBlockResampler(baseline, ri.BlockLengths[0])
	cand := newBlockResampler(candidate, ri.BlockLengths[1])
	ratios := make([]float64, opt.Resamples)
	for b := range ratios {
		ratios[b] = safeRatio(statistic(base.resample(rng)), statistic(cand.resample(rng)))
	}
	slices.Sort(ratios)
	ri.Low, ri.High = sortedQuantile(ratios, 1-level), sortedQuantile(ratios, level)
	ri.pAbove = func(c float64) float64 { return fractionAtMost(ratios, c) }
	ri.pBelow = func(c float64) float64 { return fractionAtLeast(ratios, c) }
	return ri, nil
}

func withBootstrapDefaults(opt BootstrapOptions) BootstrapOptions {
	def := DefaultBootstrapOptions()
	if opt.Resamples <= 0 {
		opt.Resamples = def.Resamples
	}
	return opt
}

func (opt BootstrapOptions) blockLength(values []float64) int {
	if opt.BlockLength > 0 {
		return min(opt.BlockLength, len(values))
	}
	return BlockLength(values)
}

// BlockLength is the moving-block length used for a series of n values:
//
//	L = max(⌈n^(1/3)⌉, round((3n/2)^(1/3) · (2ρ/(1−ρ²))^(2/3)))
//
// capped at n/4 (and at least 1), where ρ is the lag-1 autocorrelation of
// the series clamped to [0, 0.95]. The second term is the MSE-optimal
// block length for the variance of a mean under the moving-block bootstrap,
// (3n/2)^(1/3)·(G/σ²)^(2/3) with G = Σ|k|γ(k), σ² = Σγ(k) (Hall,
// Horowitz & Jing 1995; Politis & White 2004), evaluated for an AR(1)
// series, where G/σ² = 2ρ/(1−ρ²). n^(1/3) is the rate-optimal floor used
// when the data look independent. For ρ = 0.8 and n = 500 it gives 25; a
// plain n^(1/3) (8) would lose much of the dependence and overstate
// confidence.
func BlockLength(values []float64) int {
	n := len(values)
	if n < 4 {
		return 1
	}
	floor := int(math.Ceil(math.Cbrt(float64(n))))
	rho := math.Max(0, math.Min(0.95, lag1Autocorrelation(values)))
	plugIn := int(math.Round(math.Cbrt(1.5*float64(n)) * math.Pow(2*rho/(1-rho*rho), 2.0/3)))
	return max(1, min(n/4, max(floor, plugIn)))
}

// lag1Autocorrelation is Σ(x_t−x̄)(x_{t+1}−x̄) / Σ(x_t−x̄)², 0 for a
// constant series.
func lag1Autocorrelation(values []float64) float64 {
	m := mean(values)
	num, den := 0.0, 0.0
	for i, v := range values {
		den += (v - m) * (v - m)
		if i+1 < len(values) {
			num += (v - m) * (values[i+1] - m)
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// blockResampler draws moving-block resamples of one series into a
// buffer it reuses.
type blockResampler struct {
	values []float64
	block  int
	buf    []float64
}

func newBlockResampler(values []float64, block int) *blockResampler {
	return &blockResampler{values: values, block: block, buf: make([]float64, len(values))}
}

// resample fills the buffer with blocks starting at uniform positions in
// 0..n−L and returns it (valid until the next call).
func (r *blockResampler) resample(rng *rand.Rand) []float64 {
	n, starts := len(r.values), len(r.values)-r.block+1
	for i := 0; i < n; i += r.block {
		s := rng.IntN(starts)
		copy(r.buf[i:min(n, i+r.block)], r.values[s:s+r.block])
	}
	return r.buf
}

// statisticFunc is the function computing a statistic (avg, min, max, std
// or pNN, as gates name them) on values, which it may reorder. std is the
// population standard deviation, as Distribution.Std.
func statisticFunc(stat string) (func([]float64) float64, error) {
	switch stat {
	case "avg", "":
		return mean, nil
	case "min":
		return func(v []float64) float64 { return slices.Min(v) }, nil
	case "max":
		return func(v []float64) float64 { return slices.Max(v) }, nil
	case "std":
		return populationStddev, nil
	}
	p, ok := percentileOf(stat)
	if !ok || p > 100 {
		return nil, errors.New("unknown statistic " + stat)
	}
	return func(v []float64) float64 { return selectPercentile(v, p) }, nil
}

func populationStddev(v []float64) float64 {
	m, ss := mean(v), 0.0
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(v)))
}

// sortedQuantile is the q-quantile (0 ≤ q ≤ 1) of sorted values with
// linear interpolation, safe with infinite values.
func sortedQuantile(sorted []float64, q float64) float64 {
	rank := float64(len(sorted)-1) * q
	i := int(math.Floor(rank))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	a, b, t := sorted[i], sorted[i+1], rank-float64(i)
	if t == 0 || a == b {
		return a
	}
	return a + (b-a)*t
}

// fractionAtMost is the fraction of the sorted values ≤ c.
func fractionAtMost(sorted []float64, c float64) float64 {
	n, _ := slices.BinarySearch(sorted, math.Nextafter(c, math.Inf(1)))
	return float64(n) / float64(len(sorted))
}

// fractionAtLeast is the fraction of the sorted values ≥ c.
func fractionAtLeast(sorted []float64, c float64) float64 {
	n, _ := slices.BinarySearch(sorted, c)
	return float64(len(sorted)-n) / float64(len(sorted))
}
