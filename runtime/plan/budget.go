package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"
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
		return nil, fmt.Errorf("got %s, want a share of requests from 0 to 100%%", Percent(rate))
	}
	return &ErrorBudget{MaxRate: rate}, nil
}

// String is the budget as written back: a percentage.
func (b ErrorBudget) String() string { return Percent(b.MaxRate) }
