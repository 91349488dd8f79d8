package builtins

import (
	"strconv"
	"time"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/runtime/plan"
)

// Plan values render themselves the way a scenario writes them
// (plan.Endpoint.String, plan.Load.String, plan.Sweep.String), so `llmbench
// check` and str() in a script show the same thing.

// quote writes s as a Starlark string literal.
func quote(s string) string { return starlark.String(s).String() }

// num writes a number as a script would: 16, 0.5, 1e-06.
func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// percent writes a ratio as a percentage, hiding float noise (0.07 is
// "7%", not "7.000000000000001%").
func percent(r float64) string { return strconv.FormatFloat(r*100, 'g', 12, 64) + "%" }

// durationText writes a duration compactly: "10m", "500ms", "1m30s".
func durationText(d time.Duration) string { return plan.DurationText(d) }
