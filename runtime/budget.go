package runtime

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/failure"
)

// ErrorBudget is the share of a point's measured requests that may fail
// before the whole run is abandoned (`--max-error-rate`,
// `experiment(error_budget=)`): a server that fails most requests is not
// worth hours of sweeping. Without one, failures are data that gates
// judge, never a reason to stop.
type ErrorBudget struct {
	// MaxRate is the largest tolerated failed / finished share, 0 to 1; 0
	// stops at the first failure.
	MaxRate float64
}

// budgetFloor is the fewest finished requests a rate is taken over: with
// fewer, the rate is counted as if this many had finished, so one early
// failure does not stop a run with a 5% budget (a point planned shorter
// is judged over its planned count).
const budgetFloor = 20

// budgetMeter follows one run of a point against its budget.
type budgetMeter struct {
	budget           *ErrorBudget
	floor            int
	failed, finished int
}

func newBudgetMeter(b *ErrorBudget, planned int) *budgetMeter {
	floor := budgetFloor
	if planned > 0 {
		floor = min(floor, planned)
	}
	return &budgetMeter{budget: b, floor: floor}
}

// add counts rec and reports whether the budget is now exceeded.
func (m *budgetMeter) add(rec *metrics.Record) bool {
	if m == nil || m.budget == nil {
		return false
	}
	m.finished++
	if rec.Err != nil {
		m.failed++
	}
	return float64(m.failed) > m.budget.MaxRate*float64(max(m.finished, m.floor))
}

// BudgetExceeded is a run abandoned by its error budget: what finished is
// kept and written, and the run exits 3.
type BudgetExceeded struct {
	Failed, Finished int
	MaxRate          float64
	// Common is the most frequent error of the point.
	Common metrics.ErrorCount
}

func (e *BudgetExceeded) Error() string {
	return fmt.Sprintf("error budget exceeded: %d of %d requests failed (%.1f%%, budget %s); most common (%d times): %s; the run stopped and what finished is written",
		e.Failed, e.Finished, 100*float64(e.Failed)/float64(max(e.Finished, 1)), percent(e.MaxRate), e.Common.Count, DescribeError(e.Common))
}

// FailureClass makes an exceeded budget exit 3 (SPEC §1).
func (*BudgetExceeded) FailureClass() failure.Class { return failure.Run }

// DescribeError is an error group in words: its class, HTTP status when it
// has one, and message.
func DescribeError(e metrics.ErrorCount) string {
	what := string(e.Class)
	if e.Status != 0 {
		what += " " + strconv.Itoa(e.Status)
	}
	return what + ": " + e.Message
}

// ParseErrorBudget reads a budget written as a percentage ("5%") or a
// fraction ("0.05"), 0 to 100%.
func ParseErrorBudget(s string) (*ErrorBudget, error) {
	v, err := ParseShare(s)
	if err != nil {
		return nil, err
	}
	return NewErrorBudget(v)
}

// ParseShare reads a share written as a percentage ("5%") or a fraction
// ("0.05") into the fraction; its range is the caller's to check.
func ParseShare(s string) (float64, error) {
	text := strings.TrimSpace(s)
	scale := 1.0
	if t, ok := strings.CutSuffix(text, "%"); ok {
		text, scale = strings.TrimSpace(t), 0.01
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("got %q, want a share of requests such as 5%% or 0.05", s)
	}
	return v * scale, nil
}

// NewErrorBudget is a budget of rate, a fraction from 0 to 1.
func NewErrorBudget(rate float64) (*ErrorBudget, error) {
	if !(rate >= 0 && rate <= 1) {
		return nil, fmt.Errorf("got %s, want a share of requests from 0 to 100%%", percent(rate))
	}
	return &ErrorBudget{MaxRate: rate}, nil
}

// String is the budget as written back: a percentage.
func (b *ErrorBudget) String() string { return percent(b.MaxRate) }
