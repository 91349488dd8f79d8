package main

import (
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/dataset"
)

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

// sessionMode reports whether the flags ask for conversations.
func (s *SessionFlags) sessionMode() bool { return s.SessionConcurrency > 0 }

// validateSessions refuses session flags no run can use.
func (c *profileFlags) validateSessions() error {
	s := &c.SessionFlags
	switch {
	case s.SessionConcurrency < 0 || s.NumSessions < 0:
		return invalid("--session-concurrency and --num-sessions: got %d and %d, want >= 0", s.SessionConcurrency, s.NumSessions)
	case s.SessionTurnsMean < 1 || s.SessionTurnsStddev < 0 || s.SessionTurnDelayMean < 0 || s.SessionTurnDelayStddev < 0:
		return invalid("--session-turns-mean must be >= 1 and the session standard deviations and delays >= 0")
	case !(s.SessionDelayRatio > 0):
		return invalid("--session-delay-ratio: got %g, want a number > 0", s.SessionDelayRatio)
	case !s.sessionMode() && (s.NumSessions > 0 || s.SessionTurnsMean > 1):
		return invalid("--num-sessions and --session-turns-mean need --session-concurrency N (how many sessions run at once)")
	case !s.sessionMode():
		return nil
	case c.Concurrency > 0 || c.RequestRate > 0 || c.FixedSchedule:
		return invalid("--session-concurrency, --concurrency, --request-rate and --fixed-schedule are mutually exclusive")
	case c.MeasurementInterval > 0 || (c.RequestCount.N > 0 && s.NumSessions > 0):
		return invalid("--session-concurrency stops after --num-sessions sessions or --request-count turns, not both, and not --measurement-interval")
	case c.NumPrefixPrompts > 0:
		return invalid("--num-prefix-prompts with --session-concurrency is not supported: give sessions a shared system prompt in a scenario (conversations(system_prompt_tokens=...))")
	case c.InputFile != "" && !isPayload(c.InputFile):
		return invalid("--session-concurrency with --input-file %s: sessions come from a payload file (--input-file payload:FILE with session_id and delay) or are synthetic", c.InputFile)
	}
	return nil
}

// conversations is the synthetic sessions the flags describe.
func (c *profileFlags) conversations() dataset.Conversations {
	s := &c.SessionFlags
	conv := dataset.Conversations{
		Turns: dataset.Normal{Mu: float64(s.SessionTurnsMean), Sigma: float64(s.SessionTurnsStddev)},
		Input: dataset.Normal{Mu: float64(c.SyntheticInputTokensMean), Sigma: float64(c.SyntheticInputTokensStddev)},
		Count: max(s.NumSessions, 0), Seed: uint64(c.RandomSeed), Deterministic: c.OutputTokensMeanDeterministic,
	}
	if c.OutputTokensMean > 0 {
		conv.Output = dataset.Normal{Mu: float64(c.OutputTokensMean), Sigma: float64(c.OutputTokensStddev)}
	}
	if s.SessionTurnDelayMean > 0 || s.SessionTurnDelayStddev > 0 {
		conv.Think = dataset.Normal{Mu: float64(s.SessionTurnDelayMean), Sigma: float64(s.SessionTurnDelayStddev)}
	}
	return conv
}

// sessionPoint is the point of a session run: a closed loop of sessions
// stopped after --num-sessions (default max(10, 2×N)) or --request-count
// turns.
func (c *profileFlags) sessionPoint() runtime.Point {
	s := &c.SessionFlags
	stop := runtime.Stop{Requests: c.RequestCount.N, Sessions: s.NumSessions}
	if stop.Requests == 0 && stop.Sessions == 0 {
		stop.Sessions = max(10, 2*s.SessionConcurrency)
	}
	return runtime.Point{Load: runtime.Load{Concurrency: s.SessionConcurrency, RampUp: c.rampUp()}, Stop: stop,
		Warmup: c.WarmupRequestCount, Seed: uint64(c.RandomSeed), Grace: runtimeGrace}
}

// describeSessions echoes the session flags in input_config.
func (c *profileFlags) describeSessions(r *genaiperf.Run) {
	s := &c.SessionFlags
	r.Sessions = genaiperf.SessionConfig{Num: s.NumSessions, TurnsMean: s.SessionTurnsMean, TurnsStddev: s.SessionTurnsStddev,
		TurnDelayMean: s.SessionTurnDelayMean, TurnDelayStd: s.SessionTurnDelayStddev, DelayRatio: s.SessionDelayRatio}
	if s.sessionMode() {
		r.Stimulus = genaiperf.Stimulus{SessionConcurrency: s.SessionConcurrency}
	}
}
