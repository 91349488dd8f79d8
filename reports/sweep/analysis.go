package sweep

import (
	"strconv"

	"github.com/llmbench/llmbench/runtime"
)

// partial reports a point cut short by an interrupt: shown, but too short
// to be judged with the others.
func partial(p *runtime.PointResult) bool {
	return p.Outcome != nil && p.Outcome.Interrupted
}

// loadName is a load in words: "concurrency 16", "rate 2.5".
func loadName(param string, v float64) string {
	return param + " " + strconv.FormatFloat(v, 'f', -1, 64)
}
