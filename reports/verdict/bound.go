package verdict

import (
	"encoding/json"
	"fmt"
	"math"
)

// Bound is one end of a relative interval (candidate/baseline − 1) as
// gates.json and compare.json carry it. JSON has no infinity, and an
// interval may be unbounded (the p99 of too few requests has no upper
// confidence bound), so an infinite bound is written as null and null
// read back as +Inf above, −1 (a ratio of 0) below.
type Bound float64

// Interval is a relative interval [low, high].
type Interval [2]Bound

// NewInterval is the relative interval of a ratio interval [lo, hi].
func NewInterval(lo, hi float64) Interval { return Interval{Bound(lo - 1), Bound(hi - 1)} }

// String is the interval in percent for people: "[+1.2%, +8.4%]", an
// unbounded end written as such.
func (iv Interval) String() string {
	end := func(b Bound) string {
		if math.IsInf(float64(b), 1) {
			return "unbounded"
		}
		return fmt.Sprintf("%+.1f%%", 100*float64(b))
	}
	return "[" + end(iv[0]) + ", " + end(iv[1]) + "]"
}

// MarshalJSON writes null for an infinite or NaN bound.
func (b Bound) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(b), 0) || math.IsNaN(float64(b)) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(b))
}

// UnmarshalJSON reads a bound written by MarshalJSON, null as +Inf: a
// change from 0 (compare.json's change of an error_rate that was 0).
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

// UnmarshalJSON reads the interval's ends, null as unbounded.
func (iv *Interval) UnmarshalJSON(data []byte) error {
	var ends [2]*float64
	if err := json.Unmarshal(data, &ends); err != nil {
		return err
	}
	iv[0], iv[1] = -1, Bound(math.Inf(1))
	if ends[0] != nil {
		iv[0] = Bound(*ends[0])
	}
	if ends[1] != nil {
		iv[1] = Bound(*ends[1])
	}
	return nil
}
