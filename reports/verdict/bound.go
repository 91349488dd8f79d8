package verdict

import (
	"encoding/json"
	"fmt"
	"math"
)

// Bound is a relative number (candidate/baseline − 1, or a fraction such
// as a minimum detectable change) as gates.json and compare.json carry
// it. JSON has no infinity, and a bound may not exist (the p99 of too few
// requests has no upper confidence bound), so an infinite or NaN bound is
// written as null and null read back as +Inf (an interval's lower end:
// −Inf).
type Bound float64

// Interval is the change's two one-sided bounds [lower, upper], each at
// the confidence level: the change is at least the lower bound at that
// confidence, and at most the upper one. A bound that does not exist is
// −Inf (lower) or +Inf (upper); a lower bound of +Inf exists (a change
// from 0, such as error_rate's from a clean baseline, is infinite).
type Interval [2]Bound

// NewInterval is the relative interval of the one-sided bounds lo and hi
// of a ratio: a lower bound of 0 (or less, or NaN) does not exist, nor
// does an infinite or NaN upper one.
func NewInterval(lo, hi float64) Interval {
	iv := Interval{Bound(math.Inf(-1)), Bound(math.Inf(1))}
	if lo > 0 {
		iv[0] = Bound(lo - 1)
	}
	if !math.IsInf(hi, 0) && !math.IsNaN(hi) {
		iv[1] = Bound(hi - 1)
	}
	return iv
}

// finite says whether a bound is a finite number.
func (b Bound) finite() bool { return !math.IsInf(float64(b), 0) && !math.IsNaN(float64(b)) }

// lowerExists and upperExists say whether each end is a bound.
func (iv Interval) lowerExists() bool { return iv[0].finite() || math.IsInf(float64(iv[0]), 1) }
func (iv Interval) upperExists() bool { return iv[1].finite() }

// String is the interval for people, each end a one-sided bound in
// words: "[≥ +3.1%, ≤ +21.0%]", a missing one "no lower bound" or "no
// upper bound".
func (iv Interval) String() string { return iv.Explained("") }

// Explained is String with why a missing bound is missing:
// "[≥ +3.1%, no upper bound (only 3 requests above p99)]", said after the
// missing bound (after the upper one when both are); why is left out when
// both bounds exist.
func (iv Interval) Explained(why string) string {
	lower, upper := "no lower bound", "no upper bound"
	if iv.lowerExists() {
		lower = fmt.Sprintf("≥ %+.1f%%", 100*float64(iv[0]))
	}
	if iv.upperExists() {
		upper = fmt.Sprintf("≤ %+.1f%%", 100*float64(iv[1]))
	}
	switch {
	case why == "":
	case !iv.upperExists():
		upper += " (" + why + ")"
	case !iv.lowerExists():
		lower += " (" + why + ")"
	}
	return "[" + lower + ", " + upper + "]"
}

// MarshalJSON writes null for an infinite or NaN bound.
func (b Bound) MarshalJSON() ([]byte, error) {
	if !b.finite() {
		return []byte("null"), nil
	}
	return json.Marshal(float64(b))
}

// UnmarshalJSON reads a bound written by MarshalJSON, null as +Inf: a
// change from 0 (compare.json's change of an error_rate that was 0), a
// minimum detectable change that does not exist.
func (b *Bound) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*b = Bound(math.Inf(1))
		return nil
	}
	var f float64
	err := json.Unmarshal(data, &f)
	*b = Bound(f)
	return err
}

// UnmarshalJSON reads the interval's bounds, null as missing (a lower
// bound of +Inf, written null, reads back as missing: its change, null
// too, says it was infinite).
func (iv *Interval) UnmarshalJSON(data []byte) error {
	var ends [2]*float64
	if err := json.Unmarshal(data, &ends); err != nil {
		return err
	}
	iv[0], iv[1] = Bound(math.Inf(-1)), Bound(math.Inf(1))
	if ends[0] != nil {
		iv[0] = Bound(*ends[0])
	}
	if ends[1] != nil {
		iv[1] = Bound(*ends[1])
	}
	return nil
}
