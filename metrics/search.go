package metrics

import (
	"errors"
	"fmt"
	"math"
)

// Saturator chooses the loads of an until_saturation sweep. It is a pure
// function of the points measured so far, so the runtime owns the running,
// recording and checkpointing, and a resumed sweep asks again with the
// points it already has and gets the same next load. Loads grow
// geometrically from Start by Factor, capped at Limit, until Rule holds.
type Saturator struct {
	// Start is the first load, Factor (> 1) multiplies the load at each
	// step, and Limit is the highest load the sweep may try: the last step
	// is cut down to it so the limit itself is measured.
	Start, Factor, Limit float64
	// Integer makes every load a whole number, as concurrency is: a grown
	// load is rounded up, and always at least one more than the last, so a
	// small factor (1.5 × 1) still advances.
	Integer bool
	// Rule decides when the server is saturated.
	Rule SaturationRule
	// Param names the load in reasons: "concurrency", "rate".
	Param string
}

// Validate reports a configuration whose steps would not increase or
// could not start.
func (s Saturator) Validate() error {
	switch {
	case !(s.Start > 0):
		return fmt.Errorf("until_saturation start %s: want a load above 0", plainNumber(s.Start))
	case s.Integer && s.Start != math.Trunc(s.Start):
		return fmt.Errorf("until_saturation start %s: want a whole number", plainNumber(s.Start))
	case !(s.Factor > 1):
		return fmt.Errorf("until_saturation factor %s: want a number above 1", plainNumber(s.Factor))
	case !(s.Limit >= s.Start):
		return fmt.Errorf("until_saturation limit %s: want a load of at least start (%s)",
			plainNumber(s.Limit), plainNumber(s.Start))
	}
	return s.Rule.Validate()
}

// Next returns the next load to run, given every point measured so far in
// the order run. When the sweep is over, done is true, load is the
// capacity it found (the saturation point's load, or the highest load
// tried) and reason says in words why it stopped: which rule held, or
// that the limit was reached without saturating.
func (s Saturator) Next(measured []LoadPoint) (load float64, done bool, reason string) {
	limit := s.limit()
	if len(measured) == 0 {
		if first := s.first(); first <= limit {
			return first, false, ""
		}
		return 0, true, fmt.Sprintf("start %s is above the limit %s: nothing to measure",
			plainNumber(s.Start), plainNumber(s.Limit))
	}
	if i, why, ok := s.Rule.Check(measured, s.Param); ok {
		return measured[i].Load, true, why
	}
	last := measured[len(measured)-1].Load
	if last >= limit {
		return last, true, fmt.Sprintf("reached the limit (%s) without saturating: the capacity reported is only the highest load tried",
			loadName(s.Param, limit))
	}
	next := math.Min(s.grow(last), limit)
	if !(next > last) {
		return last, true, fmt.Sprintf("factor %s does not raise the load above %s",
			plainNumber(s.Factor), loadName(s.Param, last))
	}
	return next, false, ""
}

func (s Saturator) first() float64 {
	if s.Integer {
		return wholeUp(s.Start)
	}
	return s.Start
}

func (s Saturator) limit() float64 {
	if s.Integer {
		return wholeDown(s.Limit)
	}
	return s.Limit
}

func (s Saturator) grow(load float64) float64 {
	next := load * s.Factor
	if s.Integer {
		return math.Max(wholeUp(next), load+1)
	}
	return next
}

// Searcher chooses the loads of a search() sweep: the largest load in
// [Lo, Hi] meeting Gate, assuming the gate's metric worsens monotonically
// with load. Like Saturator it keeps no state; the runtime records every
// point tried and passes them back, so the points the answer rests on are
// in the results for anyone to check.
//
// It probes Lo, then Hi, then bisects the bracket between the highest load
// known to pass and the lowest known to fail until the bracket is within
// Precision of its passing end (or, for whole loads, the two ends are
// adjacent). A pass above a known failure is noise on the monotone
// assumption and is ignored, as Knee ignores it.
type Searcher struct {
	// Gate is the condition a load must meet. Its @ conditions and
	// baseline form are meaningless here (the search chooses the point;
	// there is no baseline value), so Validate rejects them.
	Gate Gate
	// Lo and Hi bound the search; both are probed.
	Lo, Hi float64
	// Precision is the relative width at which to stop: 0.05 stops once
	// (fail − pass) / pass ≤ 5%.
	Precision float64
	// Integer restricts loads to whole numbers, as concurrency is: Lo is
	// rounded up, Hi down, and each probe to the nearest whole number.
	Integer bool
}

// Validate reports a search that cannot run or cannot end.
func (s Searcher) Validate() error {
	lo, hi := s.bounds()
	switch {
	case len(s.Gate.At) > 0:
		return fmt.Errorf("search gate %q: want a gate without @, the search chooses the point", s.Gate.Source)
	case s.Gate.Baseline:
		return fmt.Errorf("search gate %q: a search against a baseline is not supported", s.Gate.Source)
	case !(s.Lo > 0):
		return fmt.Errorf("search lo %s: want a load above 0", plainNumber(s.Lo))
	case !(hi > lo):
		return fmt.Errorf("search hi %s: want a load above lo (%s)", plainNumber(s.Hi), plainNumber(s.Lo))
	case !(s.Precision > 0 && s.Precision < 1):
		return errors.New("search precision " + plainNumber(s.Precision) + ": want a ratio between 0 and 1 (5% is 0.05)")
	}
	return nil
}

// Next returns the next load to try, given every point tried so far. When
// the search is over, done is true and load is Result's best (0 when even
// Lo failed).
func (s Searcher) Next(tried []LoadPoint) (load float64, done bool) {
	lo, hi := s.bounds()
	met := s.outcomes(tried)
	if passed, seen := met[lo]; !seen {
		return lo, false
	} else if !passed {
		return 0, true
	}
	if passed, seen := met[hi]; !seen {
		return hi, false
	} else if passed {
		return hi, true
	}
	pass, fail := bracket(met)
	if s.converged(pass, fail) {
		return pass, true
	}
	mid := s.midpoint(pass, fail)
	if _, seen := met[mid]; seen || !(mid > pass && mid < fail) {
		return pass, true // floating point has nothing left between them
	}
	return mid, false
}

// Result returns the largest load tried that met the gate below every
// load that failed it: the answer once Next is done, the best so far
// before. ok is false when no such load was tried (Lo failed).
func (s Searcher) Result(tried []LoadPoint) (best float64, ok bool) {
	pass, _ := bracket(s.outcomes(tried))
	if math.IsInf(pass, -1) {
		return 0, false
	}
	return pass, true
}

// bounds are Lo and Hi as loads the search can run.
func (s Searcher) bounds() (lo, hi float64) {
	if s.Integer {
		return wholeUp(s.Lo), wholeDown(s.Hi)
	}
	return s.Lo, s.Hi
}

// outcomes maps each load tried within the bounds to whether it met the
// gate; a load tried more than once passes only if it passed every time.
func (s Searcher) outcomes(tried []LoadPoint) map[float64]bool {
	lo, hi := s.bounds()
	met := make(map[float64]bool, len(tried))
	for _, p := range tried {
		if p.Load < lo || p.Load > hi {
			continue
		}
		passed, seen := met[p.Load]
		met[p.Load] = meets(s.Gate, p) && (passed || !seen)
	}
	return met
}

// bracket returns the lowest failing load (+Inf if none) and the highest
// passing load below it (−Inf if none).
func bracket(met map[float64]bool) (pass, fail float64) {
	pass, fail = math.Inf(-1), math.Inf(1)
	for load, passed := range met {
		if !passed {
			fail = math.Min(fail, load)
		}
	}
	for load, passed := range met {
		if passed && load < fail {
			pass = math.Max(pass, load)
		}
	}
	return pass, fail
}

func (s Searcher) converged(pass, fail float64) bool {
	if s.Integer && fail-pass <= 1 {
		return true
	}
	return (fail-pass)/pass <= s.Precision
}

// midpoint is the geometric mean of the bracket. The precision is
// relative, so halving the ratio fail/pass with each probe reaches it in
// the fewest runs at any scale, where the arithmetic mean would spend
// probes near Hi when the answer is near Lo. Each probe is a whole
// benchmark run, so that matters.
func (s Searcher) midpoint(pass, fail float64) float64 {
	mid := math.Sqrt(pass * fail)
	if s.Integer {
		mid = math.Min(math.Max(math.Round(mid), pass+1), fail-1)
	}
	return mid
}

// wholeUp rounds a load up to a whole number, but takes a value within
// floating-point error of one as that number: 10 × 1.1 is
// 11.000000000000002, which is 11, not 12.
func wholeUp(x float64) float64 {
	if r := math.Round(x); nearly(x, r) {
		return r
	}
	return math.Ceil(x)
}

// wholeDown is wholeUp's counterpart for an upper bound.
func wholeDown(x float64) float64 {
	if r := math.Round(x); nearly(x, r) {
		return r
	}
	return math.Floor(x)
}

func nearly(x, whole float64) bool {
	return math.Abs(x-whole) <= 1e-9*math.Max(1, math.Abs(x))
}
