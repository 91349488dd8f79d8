package metrics

// Change points. DetectChangePoints finds where the level of a series shifted: the runs
// of a nightly history at which a metric moved to a new level and stayed
// there. It owns the method and nothing else: E-divisive means
// (Matteson & James 2014) in the variant of Hunter (Fleming et al.,
// ICPE 2023) that Apache Otava runs, with its significance test and a
// minimum magnitude.
//
// The method, step by step (docs/compare.md, "Change points"):
//
//  1. Split. Overlapping windows of ChangePointOptions.Window values (a step of half
//     a window) are each cut recursively at the split that maximises
//     E-divisive's divergence q̂ between the values before and after it,
//     while the split's Student t-test (pooled variance, two-sided)
//     between its neighbouring segments is significant at a relaxed level
//     (10 × MaxPValue below 0.05, as Otava): these are the weak change
//     points, the union over all windows.
//  2. Merge. Each weak point is re-tested between its neighbouring change
//     points over the whole series; the weakest (highest p-value, else the
//     smallest relative shift) is removed while it fails MaxPValue or
//     MinMagnitude, its neighbours re-tested after each removal.
//
// It is deterministic: Otava's original E-divisive significance test is a
// permutation test (random); Hunter replaced it with the t-test, which
// needs no random draws and works with a handful of runs, and this
// detector uses the t-test throughout, with Otava's pooled variance
// (pooledTTest says why). One detail differs from Otava 0.8.0, on purpose: after
// the merge step removes a point, both its neighbours are re-tested (Otava
// re-tests the next two, leaving the previous point's statistics stale,
// as if the removed point still bounded its segment). bench/otava
// measures the result against Otava itself: more true change points and
// fewer false ones on otava-test-data's patterns.

import (
	"fmt"
	"math"
	"slices"
)

// ChangePointOptions are the detector's knobs; DefaultChangePointOptions are Otava's.
type ChangePointOptions struct {
	// Window is how many values each split step looks at (≥ 3): a shift
	// is found among its neighbours, not diluted by a long history.
	Window int
	// MaxPValue is the significance a change point must reach, in (0, 1).
	MaxPValue float64
	// MinMagnitude is the smallest relative shift reported (0.05: 5%), in
	// either direction: a significant shift too small to matter is not a
	// change point.
	MinMagnitude float64
}

// DefaultChangePointOptions are Otava's defaults (window 50, p ≤ 0.001) with a
// minimum magnitude of 0: every significant shift.
func DefaultChangePointOptions() ChangePointOptions {
	return ChangePointOptions{Window: 50, MaxPValue: 0.001, MinMagnitude: 0}
}

// Validate says which option is out of range, naming it.
func (o ChangePointOptions) Validate() error {
	switch {
	case o.Window < 3:
		return fmt.Errorf("window: got %d, want at least 3 values", o.Window)
	case !(o.MaxPValue > 0 && o.MaxPValue < 1):
		return fmt.Errorf("max p-value: got %g, want a level in (0, 1) such as 0.001", o.MaxPValue)
	case !(o.MinMagnitude >= 0) || math.IsInf(o.MinMagnitude, 0):
		return fmt.Errorf("minimum magnitude: got %g, want a share of 0 or more such as 0.05", o.MinMagnitude)
	}
	return nil
}

// ChangePoint is one shift of level: the values from Index on (up to the
// next change point) differ from those before it (back to the previous
// one).
type ChangePoint struct {
	// Index is the first value at the new level (never 0).
	Index int
	// Before and After are the means of the segments either side.
	Before, After float64
	// PValue is the two-sided Student t-test of the two segments.
	PValue float64
}

// Change is the shift relative to the level before it: 0.12 is 12%
// higher; ±Inf from a level of 0.
func (c ChangePoint) Change() float64 { return c.After/c.Before - 1 }

// Magnitude is Otava's size of a shift: the larger of the relative change
// forward (After/Before − 1) and backward (Before/After − 1), in absolute
// value, so a halving and a doubling weigh alike; a side of 0 has no
// ratio and counts as 0 (a shift from 0 to anything is of magnitude 1).
func (c ChangePoint) Magnitude() float64 {
	return math.Max(math.Abs(relativeShift(c.After, c.Before)), math.Abs(relativeShift(c.Before, c.After)))
}

func relativeShift(to, from float64) float64 {
	if from == 0 {
		return 0
	}
	return to/from - 1
}

// DetectChangePoints finds the change points of series (in order, oldest first) by
// Hunter's split and merge steps; none for fewer than 3 values. A
// non-finite value or an option out of range is an error.
func DetectChangePoints(series []float64, opt ChangePointOptions) ([]ChangePoint, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	for i, v := range series {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("value %d is %g: want finite values", i, v)
		}
	}
	if len(series) < 3 {
		return nil, nil
	}
	weak := splitByWindows(series, opt.Window, firstPassPValue(opt.MaxPValue))
	return mergeChangePoints(series, weak, opt), nil
}

// firstPassPValue is the relaxed level of the split step (Otava's rule):
// weak points are kept at ten times the final level (twice it from 0.05,
// the level itself from 0.5), so that a shift the windowed view finds
// only weakly survives to be judged over the whole series.
func firstPassPValue(p float64) float64 {
	switch {
	case p < 0.05:
		return 10 * p
	case p < 0.5:
		return 2 * p
	}
	return p
}

// splitByWindows is Hunter's split step: windows of window values, half a window
// apart (a window starts again at the last change point it found, if
// that is further on), each cut by E-divisive at level p; the union of
// the cuts, in order.
func splitByWindows(series []float64, window int, p float64) []int {
	var cuts []int
	step := window / 2
	for start := 0; start < len(series); {
		end := min(start+window, len(series))
		found := divideSegment(series[start:end], p)
		next := start + step
		for _, c := range found {
			if !slices.Contains(cuts, start+c) {
				cuts = append(cuts, start+c)
			}
			next = max(next, start+c)
		}
		start = next
	}
	slices.Sort(cuts)
	return cuts
}

// divideSegment is E-divisive on one window: while the best split of any
// segment (largest q̂) is significant at level p between its segment's
// two sides, cut there; the cuts, in order.
func divideSegment(series []float64, p float64) []int {
	var cuts []int
	for {
		cand, ok := bestCandidate(series, cuts)
		if !ok {
			return cuts
		}
		lo, hi := segmentAround(cuts, cand, len(series))
		if pooledTTest(series[lo:cand], series[cand:hi]) > p {
			return cuts
		}
		cuts = append(cuts, cand)
		slices.Sort(cuts)
	}
}

// segmentAround is the segment [lo, hi) between the cuts that holds index
// i (cuts sorted, i not one of them).
func segmentAround(cuts []int, i, n int) (lo, hi int) {
	lo, hi = 0, n
	for _, c := range cuts {
		if c < i {
			lo = c
		} else if c > i {
			return lo, c
		}
	}
	return lo, hi
}

// mergeChangePoints is Hunter's merge step: each cut re-tested between its
// neighbouring cuts over the whole series, the weakest removed while one
// fails (first the highest p-value above MaxPValue, then the smallest
// magnitude not above MinMagnitude), its neighbours re-tested each time.
func mergeChangePoints(series []float64, cuts []int, opt ChangePointOptions) []ChangePoint {
	cps := make([]ChangePoint, len(cuts))
	for i := range cuts {
		cps[i] = pointBetween(series, cuts, i)
	}
	for len(cps) > 0 {
		weakest := weakestPoint(cps, opt)
		if weakest < 0 {
			return cps
		}
		cps = slices.Delete(cps, weakest, weakest+1)
		cuts = slices.Delete(cuts, weakest, weakest+1)
		for _, i := range []int{weakest - 1, weakest} {
			if i >= 0 && i < len(cps) {
				cps[i] = pointBetween(series, cuts, i)
			}
		}
	}
	return nil
}

// weakestPoint is the change point to remove next, or −1 when every one
// passes both MaxPValue and MinMagnitude.
func weakestPoint(cps []ChangePoint, opt ChangePointOptions) int {
	worst := 0
	for i, c := range cps {
		if c.PValue > cps[worst].PValue {
			worst = i
		}
	}
	if cps[worst].PValue >= opt.MaxPValue {
		return worst
	}
	smallest := 0
	for i, c := range cps {
		if c.Magnitude() < cps[smallest].Magnitude() {
			smallest = i
		}
	}
	if cps[smallest].Magnitude() > opt.MinMagnitude {
		return -1
	}
	return smallest
}

// pointBetween is cut i with the statistics of its neighbouring segments.
func pointBetween(series []float64, cuts []int, i int) ChangePoint {
	lo, hi := 0, len(series)
	if i > 0 {
		lo = cuts[i-1]
	}
	if i+1 < len(cuts) {
		hi = cuts[i+1]
	}
	before, after := series[lo:cuts[i]], series[cuts[i]:hi]
	return ChangePoint{Index: cuts[i], Before: mean(before), After: mean(after), PValue: pooledTTest(before, after)}
}
