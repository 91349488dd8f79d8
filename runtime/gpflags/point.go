package gpflags

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// Point is the load, stop and warm-up the flags ask for, with
// GenAI-Perf's defaults (concurrency 1, max(10, 2×load) requests).
func (c *Profile) Point() engine.Point {
	if c.SessionMode() {
		return c.sessionPoint()
	}
	load := plan.Load{Concurrency: c.Concurrency, Rate: c.RequestRate,
		Arrival: plan.Arrival(c.RequestDistribution), Burstiness: c.Burstiness, MaxConcurrency: c.MaxConcurrency}
	load.RampUp = c.rampUp()
	if c.FixedSchedule { // every entry once, at its timestamp
		load.ReplaySpeed = 1
		return engine.Point{Load: load, Stop: plan.Stop{Requests: c.RequestCount.N}, Warmup: c.WarmupRequestCount,
			Seed: uint64(c.RandomSeed), Grace: runtimeGrace}
	}
	if load.Concurrency == 0 && load.Rate == 0 {
		load.Concurrency = 1
	}
	stop := plan.Stop{Requests: c.RequestCount.N}
	if rule, _ := c.steadyRule(); rule != nil { // validate checked it
		stop = autoStop(rule)
	}
	if stop.Requests == 0 && stop.Duration == 0 {
		stop.Requests = max(10, 2*max(load.Concurrency, int(load.Rate+0.999))) // GenAI-Perf's default
	}
	return engine.Point{Load: load, Stop: stop, Warmup: c.WarmupRequestCount, Seed: uint64(c.RandomSeed), Grace: runtimeGrace}
}

// rampUp is the ramp the flags ask for: the concurrency ramp for a
// closed loop, the rate ramp for an open one.
func (c *Profile) rampUp() time.Duration {
	secs := c.ConcurrencyRampDuration
	if c.RequestRate > 0 {
		secs = c.RequestRateRampDuration
	}
	return time.Duration(secs * float64(time.Second))
}

// runtimeGrace is how long an interrupted point waits for requests in
// flight.
const runtimeGrace = 5 * time.Second

// isPayload reports an --input-file that names a Mooncake-style payload.
func isPayload(file string) bool { return strings.HasPrefix(file, "payload:") }

// SessionFlags are GenAI-Perf's multi-turn flags. --session-concurrency
// keeps that many conversations active; each turn resends the whole
// history. Sessions are synthetic (--session-turns-*, the prompt and
// output length flags) or, with --input-file payload:FILE, the file's
// lines grouped by session_id with their delays.
type SessionFlags struct {
	SessionConcurrency     int     `help:"Closed loop over conversations: keep N sessions active, each sending its turns one after another with the whole history (GenAI-Perf's session mode)."`
	NumSessions            int     `help:"Sessions to draw and to measure (GenAI-Perf's --num-sessions); default max(10, 2×--session-concurrency) unless --request-count counts turns."`
	SessionTurnsMean       int     `default:"1" help:"Mean turns per synthetic session (round(gauss(mean, stddev)), at least 1)."`
	SessionTurnsStddev     int     `help:"Standard deviation of the turns per synthetic session."`
	SessionTurnDelayMean   int     `help:"Mean think time between an answer and the next turn, ms."`
	SessionTurnDelayStddev int     `help:"Standard deviation of the think time, ms."`
	SessionDelayRatio      float64 `default:"1.0" help:"Scales the delay of every --input-file payload line (GenAI-Perf's --session-delay-ratio)."`
}

// SessionMode reports whether the flags ask for conversations.
func (s *SessionFlags) SessionMode() bool { return s.SessionConcurrency > 0 }

// validateSessions refuses session flags no run can use.
func (c *Profile) validateSessions() error {
	s := &c.SessionFlags
	switch {
	case s.SessionConcurrency < 0 || s.NumSessions < 0:
		return failure.Inputf("--session-concurrency and --num-sessions: got %d and %d, want >= 0", s.SessionConcurrency, s.NumSessions)
	case s.SessionTurnsMean < 1 || s.SessionTurnsStddev < 0 || s.SessionTurnDelayMean < 0 || s.SessionTurnDelayStddev < 0:
		return failure.Inputf("--session-turns-mean must be >= 1 and the session standard deviations and delays >= 0")
	case !(s.SessionDelayRatio > 0):
		return failure.Inputf("--session-delay-ratio: got %g, want a number > 0", s.SessionDelayRatio)
	case !s.SessionMode() && (s.NumSessions > 0 || s.SessionTurnsMean > 1):
		return failure.Inputf("--num-sessions and --session-turns-mean need --session-concurrency N (how many sessions run at once)")
	case !s.SessionMode():
		return nil
	case c.Concurrency > 0 || c.RequestRate > 0 || c.FixedSchedule:
		return failure.Inputf("--session-concurrency, --concurrency, --request-rate and --fixed-schedule are mutually exclusive")
	case c.MeasurementInterval > 0 || (c.RequestCount.N > 0 && s.NumSessions > 0):
		return failure.Inputf("--session-concurrency stops after --num-sessions sessions or --request-count turns, not both, and not --measurement-interval")
	case c.NumPrefixPrompts > 0:
		return failure.Inputf("--num-prefix-prompts with --session-concurrency is not supported: give sessions a shared system prompt in a scenario (conversations(system_prompt_tokens=...))")
	case c.InputFile != "" && !isPayload(c.InputFile):
		return failure.Inputf("--session-concurrency with --input-file %s: sessions come from a payload file (--input-file payload:FILE with session_id and delay) or are synthetic", c.InputFile)
	}
	return nil
}

// sessionPoint is the point of a session run: a closed loop of sessions
// stopped after --num-sessions (default max(10, 2×N)) or --request-count
// turns.
func (c *Profile) sessionPoint() engine.Point {
	s := &c.SessionFlags
	stop := plan.Stop{Requests: c.RequestCount.N, Sessions: s.NumSessions}
	if stop.Requests == 0 && stop.Sessions == 0 {
		stop.Sessions = max(10, 2*s.SessionConcurrency)
	}
	return engine.Point{Load: plan.Load{Concurrency: s.SessionConcurrency, RampUp: c.rampUp()}, Stop: stop,
		Warmup: c.WarmupRequestCount, Seed: uint64(c.RandomSeed), Grace: runtimeGrace}
}

// RequestCount is --request-count: a whole number as GenAI-Perf takes
// it, or "auto" — run until the steady-state rule is met (SPEC §12),
// between --steady-min-requests and --steady-max-requests.
type RequestCount struct {
	N    int
	Auto bool
}

// UnmarshalText accepts a whole number or "auto".
func (r *RequestCount) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "auto" {
		*r = RequestCount{Auto: true}
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf(`got %q, want a whole number or "auto"`, s)
	}
	*r = RequestCount{N: n}
	return nil
}

// SteadyFlags tune --request-count auto; they mean nothing without it.
type SteadyFlags struct {
	SteadyCI          float64 `default:"0.05" help:"With --request-count auto: stop once the 95% CIs of p50 and p99 TTFT and ITL (request latency when not streaming) are within ±this share of the estimate."`
	SteadyMinRequests int     `default:"100" help:"With --request-count auto: the fewest requests kept after the warm-up before the rule may stop the point."`
	SteadyMaxRequests int     `default:"10000" help:"With --request-count auto: the cap; reaching it is a not-converged warning."`
}

// steadyRule is the rule --request-count auto or --measurement-interval
// runs under, nil without them.
func (c *Profile) steadyRule() (*metrics.SteadyRule, error) {
	if c.MeasurementInterval > 0 && !c.RequestCount.Auto {
		return c.windowRule()
	}
	if !c.RequestCount.Auto {
		return nil, nil
	}
	r := metrics.SteadyRule{CI: c.SteadyCI, Confidence: metrics.DefaultSteadyConfidence,
		MinRequests: c.SteadyMinRequests, MaxRequests: c.SteadyMaxRequests}
	switch {
	case !(r.CI > 0 && r.CI < 0.5):
		return nil, failure.Inputf("--steady-ci: got %g, want a share between 0 and 0.5 such as 0.05", r.CI)
	case r.MinRequests < metrics.MinSteadyRequests:
		return nil, failure.Inputf("--steady-min-requests: got %d, want >= %d", r.MinRequests, metrics.MinSteadyRequests)
	case r.MaxRequests < r.MinRequests:
		return nil, failure.Inputf("--steady-max-requests: got %d, want >= --steady-min-requests (%d)", r.MaxRequests, r.MinRequests)
	case c.MeasurementInterval > 0:
		return nil, failure.Inputf("--request-count auto and --measurement-interval are mutually exclusive")
	case c.FixedSchedule || c.SessionMode():
		return nil, failure.Inputf("--request-count auto: not with --fixed-schedule or --session-concurrency (their stop is the trace or the sessions)")
	}
	return &r, nil
}

// windowRule is perf_analyzer's windowed stop: windows of
// --measurement-interval until the last 3 agree within
// --stability-percentage, at most metrics.DefaultMaxWindows (its
// --max-trials default).
func (c *Profile) windowRule() (*metrics.SteadyRule, error) {
	window := time.Duration(c.MeasurementInterval) * time.Millisecond
	r := metrics.StabilityRule{Window: int64(window), Percentage: c.StabilityPercentage, MaxWindows: metrics.DefaultMaxWindows}
	if err := r.Validate(); err != nil {
		return nil, failure.Inputf("--stability-percentage: got %g, want a positive share in %% such as 10", c.StabilityPercentage)
	}
	if c.FixedSchedule || c.SessionMode() {
		return nil, failure.Inputf("--measurement-interval: not with --fixed-schedule or --session-concurrency (their stop is the trace or the sessions)")
	}
	return &metrics.SteadyRule{Stability: &r, MaxDuration: int64(r.MaxWindows) * int64(window)}, nil
}

// autoStop is the stop of an auto point: the rule, capped at its maximum
// (requests for the intervals' rule, duration for the windows').
func autoStop(r *metrics.SteadyRule) plan.Stop {
	return plan.Stop{Requests: r.MaxRequests, Duration: time.Duration(r.MaxDuration), Steady: r}
}

// MarshalJSON writes the count as the flag was given: a number, or
// "auto", so a point's identity (analyze's checkpoint) is what it was before auto
// existed for every numeric count.
func (r RequestCount) MarshalJSON() ([]byte, error) {
	if r.Auto {
		return []byte(`"auto"`), nil
	}
	return []byte(strconv.Itoa(r.N)), nil
}
