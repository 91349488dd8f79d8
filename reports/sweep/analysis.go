package sweep

import (
	"strconv"

	"github.com/llmbench/llmbench/runtime"
)

// capacityOf is the experiment's capacity analysis as the run made it. A
// result assembled without one (a test fixture, an old caller) gets the
// same analysis the runtime makes, from the same function.
func capacityOf(res *runtime.ExperimentResult) *runtime.Capacity {
	if res.Capacity != nil {
		return res.Capacity
	}
	return runtime.AnalyzeCapacity(res, nil)
}

// partial reports a point cut short by an interrupt: shown, but too short
// to be judged with the others.
func partial(p *runtime.PointResult) bool {
	return p.Outcome != nil && p.Outcome.Interrupted
}

// loadName is a load in words: "concurrency 16", "rate 2.5".
func loadName(param string, v float64) string {
	return param + " " + strconv.FormatFloat(v, 'f', -1, 64)
}
