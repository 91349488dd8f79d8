package changepoint

import (
	"fmt"
	"math"
	"slices"
)

// Options are the detector's knobs; DefaultOptions are Otava's.
type Options struct {
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

// DefaultOptions are Otava's defaults (window 50, p ≤ 0.001) with a
// minimum magnitude of 0: every significant shift.
func DefaultOptions() Options {
	return Options{Window: 50, MaxPValue: 0.001, MinMagnitude: 0}
}

// Validate says which option is out of range, naming it.
func (o Options) Validate() error {
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
	return math.Max(math.Abs(relative(c.After, c.Before)), math.Abs(relative(c.Before, c.After)))
}

func relative(to, from float64) float64 {
	if from == 0 {
		return 0
	}
	return to/from - 1
}

// Detect finds the change points of series (in order, oldest first) by
// Hunter's split and merge steps; none for fewer than 3 values. A
// non-finite value or an option out of range is an error.
func Detect(series []float64, opt Options) ([]ChangePoint, error) {
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
	weak := split(series, opt.Window, firstPassPValue(opt.MaxPValue))
	return merge(series, weak, opt), nil
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

// split is Hunter's split step: windows of window values, half a window
// apart (a window starts again at the last change point it found, if
// that is further on), each cut by E-divisive at level p; the union of
// the cuts, in order.
func split(series []float64, window int, p float64) []int {
	var cuts []int
	step := window / 2
	for start := 0; start < len(series); {
		end := min(start+window, len(series))
		found := divide(series[start:end], p)
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

// divide is E-divisive on one window: while the best split of any
// segment (largest q̂) is significant at level p between its segment's
// two sides, cut there; the cuts, in order.
func divide(series []float64, p float64) []int {
	var cuts []int
	for {
		cand, ok := bestCandidate(series, cuts)
		if !ok {
			return cuts
		}
		lo, hi := segmentAround(cuts, cand, len(series))
		if tTest(series[lo:cand], series[cand:hi]) > p {
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

// merge is Hunter's merge step: each cut re-tested between its
// neighbouring cuts over the whole series, the weakest removed while one
// fails (first the highest p-value above MaxPValue, then the smallest
// magnitude not above MinMagnitude), its neighbours re-tested each time.
func merge(series []float64, cuts []int, opt Options) []ChangePoint {
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
func weakestPoint(cps []ChangePoint, opt Options) int {
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
	return ChangePoint{Index: cuts[i], Before: mean(before), After: mean(after), PValue: tTest(before, after)}
}
