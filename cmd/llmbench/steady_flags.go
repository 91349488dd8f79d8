package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// requestCount is --request-count: a whole number as GenAI-Perf takes
// it, or "auto" — run until the steady-state rule is met (SPEC §12),
// between --steady-min-requests and --steady-max-requests.
type requestCount struct {
	N    int
	Auto bool
}

// UnmarshalText accepts a whole number or "auto".
func (r *requestCount) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "auto" {
		*r = requestCount{Auto: true}
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf(`got %q, want a whole number or "auto"`, s)
	}
	*r = requestCount{N: n}
	return nil
}

// SteadyFlags tune --request-count auto; they mean nothing without it.
type SteadyFlags struct {
	SteadyCI          float64 `default:"0.05" help:"With --request-count auto: stop once the 95% CIs of p50 and p99 TTFT and ITL (request latency when not streaming) are within ±this share of the estimate."`
	SteadyMinRequests int     `default:"100" help:"With --request-count auto: the fewest requests kept after the warm-up before the rule may stop the point."`
	SteadyMaxRequests int     `default:"10000" help:"With --request-count auto: the cap; reaching it is a not-converged warning."`
}

// steadyRule is the rule --request-count auto runs under, nil without it.
func (c *profileFlags) steadyRule() (*metrics.SteadyRule, error) {
	if !c.RequestCount.Auto {
		return nil, nil
	}
	r := metrics.SteadyRule{CI: c.SteadyCI, Confidence: metrics.DefaultSteadyConfidence,
		MinRequests: c.SteadyMinRequests, MaxRequests: c.SteadyMaxRequests}
	switch {
	case !(r.CI > 0 && r.CI < 0.5):
		return nil, invalid("--steady-ci: got %g, want a share between 0 and 0.5 such as 0.05", r.CI)
	case r.MinRequests < metrics.MinSteadyRequests:
		return nil, invalid("--steady-min-requests: got %d, want >= %d", r.MinRequests, metrics.MinSteadyRequests)
	case r.MaxRequests < r.MinRequests:
		return nil, invalid("--steady-max-requests: got %d, want >= --steady-min-requests (%d)", r.MaxRequests, r.MinRequests)
	case c.MeasurementInterval > 0:
		return nil, invalid("--request-count auto and --measurement-interval are mutually exclusive")
	case c.FixedSchedule || c.sessionMode():
		return nil, invalid("--request-count auto: not with --fixed-schedule or --session-concurrency (their stop is the trace or the sessions)")
	}
	return &r, nil
}

// autoStop is the stop of an auto point: the rule, capped at its maximum.
func autoStop(r *metrics.SteadyRule) runtime.Stop {
	return runtime.Stop{Requests: r.MaxRequests, Steady: r}
}

// MarshalJSON writes the count as the flag was given: a number, or
// "auto", so a point's identity (pointConfig) is what it was before auto
// existed for every numeric count.
func (r requestCount) MarshalJSON() ([]byte, error) {
	if r.Auto {
		return []byte(`"auto"`), nil
	}
	return []byte(strconv.Itoa(r.N)), nil
}
