package runtime

import (
	"strconv"

	"github.com/llmbench/llmbench/runtime/plan"
)

// PointKey identifies one run of one point across a whole scenario: what a
// records file, a checkpoint, a comparison or a merge matches runs by.
type PointKey struct {
	Experiment string
	Params     plan.Params
	// Repeat counts from 1.
	Repeat int
}

// String names the run for people: "chat / concurrency16 (repeat 2)".
func (k PointKey) String() string {
	s := k.Experiment + " / " + k.Params.Label()
	if k.Repeat > 1 {
		s += " (repeat " + strconv.Itoa(k.Repeat) + ")"
	}
	return s
}
