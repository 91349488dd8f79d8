package metrics

import (
	"errors"
	"math"
	"slices"
)

// Method names how a ratio's bounds were obtained.
type Method string

// The methods, chosen by what was measured (ratioBounds).
const (
	// MethodRuns: Student's t on the log of each run's value, the
	// variance pooled over both sides' runs — the noise between runs.
	MethodRuns Method = "t-between-runs"
	// MethodOrderStatistics: distribution-free bounds of a percentile
	// from each single run's order statistics.
	MethodOrderStatistics Method = "order-statistics"
	// MethodBlockBootstrap: moving-block bootstrap of each single run's
	// per-request values.
	MethodBlockBootstrap Method = "moving-block-bootstrap"
	// MethodExact: no noise to bound (both sides 0 in every run).
	MethodExact Method = "exact"
)

// RatioInterval is the ratio candidate/baseline of one statistic with
// its two one-sided bounds, each holding with probability Confidence:
// the ratio is ≥ Low, and it is ≤ High. A bound that does not exist is 0
// (Low) or +Inf (High), and Unbounded says why.
type RatioInterval struct {
	Method Method
	// Baseline and Candidate are the statistic on each side: the mean of
	// its value in each run, so a metric has one value per run
	// everywhere. Ratio is the point estimate.
	Baseline, Candidate float64
	Ratio, Low, High    float64
	Confidence          float64
	// DF is the degrees of freedom of MethodRuns.
	DF float64
	// BlockLengths and Resamples describe MethodBlockBootstrap.
	BlockLengths [2]int
	Resamples    int
	// Unbounded says why a bound does not exist ("only 3.0 of 300
	// baseline requests lie above p99 on average ..."); "" when both do.
	Unbounded string

	// detectable, when set, is the method's own minimum detectable change
	// in the worse direction given (order statistics, whose test is not
	// the bounds').
	detectable func(worse Direction) float64

	// pAbove is the one-sided p-value of H0: ratio ≤ c; pBelow of H0:
	// ratio ≥ c. Each method sets both.
	pAbove, pBelow func(c float64) float64
}

// PAbove is the one-sided p-value of H0: "the ratio is at most c"
// against "it is above c": ≤ α exactly when the lower bound at level
// 1 − α lies above c.
func (ri RatioInterval) PAbove(c float64) float64 {
	if ri.pAbove == nil {
		return 1
	}
	return clampP(ri.pAbove(c))
}

// PBelow is PAbove mirrored: the p-value of H0 "the ratio is at least c".
func (ri RatioInterval) PBelow(c float64) float64 {
	if ri.pBelow == nil {
		return 1
	}
	return clampP(ri.pBelow(c))
}

func clampP(p float64) float64 {
	if math.IsNaN(p) {
		return 1
	}
	return math.Max(0, math.Min(1, p))
}

// ratioBounds picks the method by what was measured: the spread between
// runs when both sides together have three runs or more, one of them at
// least two (repeats, or a baseline history: a single candidate run is
// judged against the history's spread); otherwise the noise within the
// single run of each side — order statistics for a percentile, a block
// bootstrap for anything else. The point estimate is always the ratio of
// the runs' values, whatever bounds it.
func ratioBounds(stat string, baseline, candidate Sample, opt JudgeOptions) (RatioInterval, error) {
	var err error
	if baseline, err = baseline.withRun(stat); err != nil {
		return RatioInterval{}, err
	}
	if candidate, err = candidate.withRun(stat); err != nil {
		return RatioInterval{}, err
	}
	nb, nc := len(baseline.Repeats), len(candidate.Repeats)
	level := 1 - opt.alpha()
	if allZero(baseline.Repeats) && allZero(candidate.Repeats) {
		return exactRatio(mean(baseline.Repeats), mean(candidate.Repeats), level), nil
	}
	if opt.paired(nb, nc) {
		ri, err := pairedRatio(baseline.Repeats, candidate.Repeats, level)
		if !errors.Is(err, errNonPositive) {
			return ri, err
		}
	}
	if nb+nc >= 3 && max(nb, nc) >= 2 {
		ri, err := runsRatio(baseline.Repeats, candidate.Repeats, level)
		if !errors.Is(err, errNonPositive) {
			return ri, err
		}
		// A zero run value (an error_rate of 0) has no log: bound it
		// within the runs' requests instead.
	}
	if len(baseline.Values) == 0 || len(candidate.Values) == 0 {
		return RatioInterval{}, ErrNotComparable
	}
	var ri RatioInterval
	if p, ok := percentileOf(stat); ok && p > 0 && p < 100 {
		ri = orderStatisticRatio(baseline.Values, candidate.Values, p, level)
	} else if ri, err = BootstrapRatio(baseline.Values, candidate.Values, stat, opt.Bootstrap, level); err != nil {
		return ri, err
	}
	return ri.centredOn(mean(baseline.Repeats), mean(candidate.Repeats)), nil
}

// withRun is s with its one run's value computed from its values when
// it was given only those.
func (s Sample) withRun(stat string) (Sample, error) {
	if len(s.Repeats) > 0 || len(s.Values) == 0 {
		return s, nil
	}
	statistic, err := statisticFunc(stat)
	if err != nil {
		return s, err
	}
	s.Repeats = []float64{statistic(slices.Clone(s.Values))}
	return s, nil
}

// centredOn moves a within-run interval onto the runs' own values: the
// bounds keep their distance from the point estimate as ratios, and the
// point estimate becomes candidate/baseline of the values every report
// shows (a summary's throughput, not the mean of its windows' rates).
func (ri RatioInterval) centredOn(baseline, candidate float64) RatioInterval {
	ratio := safeRatio(baseline, candidate)
	shift := ratio / ri.Ratio
	if math.IsNaN(shift) || math.IsInf(shift, 0) || shift == 0 {
		shift = 1
		ratio = ri.Ratio
	}
	pAbove, pBelow := ri.pAbove, ri.pBelow
	ri.pAbove = func(c float64) float64 { return pAbove(c / shift) }
	ri.pBelow = func(c float64) float64 { return pBelow(c / shift) }
	ri.Baseline, ri.Candidate, ri.Ratio = baseline, candidate, ratio
	ri.Low, ri.High = ri.Low*shift, ri.High*shift
	return ri
}

// exactRatio is the interval of a ratio known without noise: zero on
// both sides in every run, ratio 1, no width.
func exactRatio(baseline, candidate, level float64) RatioInterval {
	r := safeRatio(baseline, candidate)
	step := func(above bool) func(float64) float64 {
		return func(c float64) float64 {
			if (above && r > c) || (!above && r < c) {
				return 0
			}
			return 1
		}
	}
	return RatioInterval{Method: MethodExact, Baseline: baseline, Candidate: candidate,
		Ratio: r, Low: r, High: r, Confidence: level, pAbove: step(true), pBelow: step(false)}
}

// errNonPositive: a run value ≤ 0 has no logarithm.
var errNonPositive = errors.New("a run's value is not positive, so has no logarithm")

// runsRatio bounds the ratio from each run's value: one run or more per
// side, three or more in all.
//
// Method: x_i = ln baseline_i (n₁ runs), y_j = ln candidate_j (n₂);
// d = ȳ − x̄; the variance of a run's log value s² pooled over both sides
// (Σ(x − x̄)² + Σ(y − ȳ)²)/(n₁ + n₂ − 2), se = s·√(1/n₁ + 1/n₂),
// df = n₁ + n₂ − 2; ratio = exp(d), bounds exp(d ∓ t(level, df)·se).
//
// Why pooled: a single candidate run has no spread of its own; the
// baseline's runs (a history of the main branch, or repeats) say how far
// one run of this scenario lands from another on this server — warm
// caches, a neighbour, a slower machine — which is the noise a
// regression must stand out from. A run's value already includes its
// own within-run noise, so nothing is added. Assumptions: runs are
// independent, their log values roughly normal with one variance on both
// sides (same scenario, same server class).
func runsRatio(baseline, candidate []float64, level float64) (RatioInterval, error) {
	x, okX := logs(baseline)
	y, okY := logs(candidate)
	if !okX || !okY {
		return RatioInterval{}, errNonPositive
	}
	mx, my := mean(x), mean(y)
	ss := squares(x, mx) + squares(y, my)
	df := float64(len(x) + len(y) - 2)
	se := math.Sqrt(ss/df) * math.Sqrt(1/float64(len(x))+1/float64(len(y)))
	d := my - mx
	ri := RatioInterval{Method: MethodRuns, Baseline: mean(baseline), Candidate: mean(candidate)}
	return ri.studentT(d, se, df, level), nil
}

// studentT completes ri from a difference of log means d with standard
// error se on df degrees of freedom: the ratio exp(d), its bounds at
// level and the one-sided p-values against any ratio; an exact ratio
// when se is 0 (every run alike).
func (ri RatioInterval) studentT(d, se, df, level float64) RatioInterval {
	ri.Confidence, ri.DF, ri.Ratio = level, df, math.Exp(d)
	if se == 0 {
		exact := exactRatio(1, ri.Ratio, level)
		ri.Low, ri.High, ri.pAbove, ri.pBelow = ri.Ratio, ri.Ratio, exact.pAbove, exact.pBelow
		return ri
	}
	half := studentTQuantile(level, df) * se
	ri.Low, ri.High = math.Exp(d-half), math.Exp(d+half)
	ri.pAbove = func(c float64) float64 { return tailAtLeast((d-math.Log(c))/se, df) }
	ri.pBelow = func(c float64) float64 { return tailAtLeast((math.Log(c)-d)/se, df) }
	return ri
}

// tailAtLeast is P(T_df ≥ t) for any t.
func tailAtLeast(t, df float64) float64 {
	if t >= 0 {
		return upperTailT(t, df)
	}
	return 1 - upperTailT(-t, df)
}

func squares(values []float64, mean float64) float64 {
	var s float64
	for _, v := range values {
		s += (v - mean) * (v - mean)
	}
	return s
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

func allZero(values []float64) bool {
	for _, v := range values {
		if v != 0 {
			return false
		}
	}
	return true
}

// safeRatio is candidate/baseline with 0/0 = 1 (nothing changed: no
// errors before or after) and c/0 = +Inf for c > 0.
func safeRatio(baseline, candidate float64) float64 {
	switch {
	case baseline == 0 && candidate == 0:
		return 1
	case baseline == 0:
		return math.Inf(1)
	}
	return candidate / baseline
}
