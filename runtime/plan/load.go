package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// Arrival is the inter-arrival distribution of an open-loop load.
type Arrival string

// The arrival processes.
const (
	// Constant sends at exactly 1/rate intervals.
	Constant Arrival = "constant"
	// Poisson draws exponential gaps: memoryless, the usual model of
	// independent users.
	Poisson Arrival = "poisson"
	// Gamma draws gamma gaps with shape = burstiness: below 1 burstier than
	// Poisson, above 1 more regular (vLLM's benchmark convention).
	Gamma Arrival = "gamma"
)

// ParseArrival accepts an arrival name as given by a user.
func ParseArrival(s string) (Arrival, error) {
	switch a := Arrival(s); a {
	case Constant, Poisson, Gamma:
		return a, nil
	}
	return "", fmt.Errorf("unknown request distribution %q, want constant, poisson or gamma", s)
}

// Load is how requests are issued at one point. Exactly one of Concurrency
// (closed loop) or Rate (open loop) is set.
type Load struct {
	// Concurrency keeps exactly this many requests in flight.
	Concurrency int `json:"concurrency,omitempty"`
	// Rate is the target requests per second of an open loop.
	Rate       float64 `json:"rate,omitempty"`
	Arrival    Arrival `json:"arrival,omitempty"`
	Burstiness float64 `json:"burstiness,omitempty"`
	// MaxConcurrency caps requests in flight under a rate (0 = no cap); a
	// request that finds the cap reached waits, and its lag is recorded.
	MaxConcurrency int `json:"max_concurrency,omitempty"`
	// ReplaySpeed > 0 replays a timed dataset (a trace): request i is sent
	// at its entry's timestamp divided by the speed.
	ReplaySpeed float64 `json:"replay_speed,omitempty"`
	// RampUp grows the load linearly over this long from the start:
	// closed-loop workers (and users) start spread over it, an open
	// loop's rate rises from 0 (ramp_up=). The ramp's requests are
	// measured like any other unless warmup covers them.
	RampUp time.Duration `json:"ramp_up,omitempty"`
	// Users > 0 paces that many users (users(N, qps=Rate)): each sends its
	// next turn N/Rate seconds after its previous one was sent, or when
	// the answer arrives if it took longer.
	Users int `json:"users,omitempty"`
	// Stages, when set, make a stages() load: the target moves linearly
	// between them, and the point ends with the last. Concurrency (closed
	// loop) or Rate (open loop) is then the stages' peak, which sizes the
	// loop and names the point. A pointer, shared read-only, keeps Load
	// comparable.
	Stages *Stages `json:"stages,omitempty"`
}

// Closed reports whether the load is a closed loop.
func (l Load) Closed() bool { return l.Rate == 0 && l.ReplaySpeed == 0 }

// Paced reports whether the load is users(): per-user pacing at a total
// rate, neither a closed loop nor an arrival process.
func (l Load) Paced() bool { return l.Users > 0 }

// UserPeriod is the time between two sends of one user under users().
func (l Load) UserPeriod() time.Duration {
	return time.Duration(float64(l.Users) / l.Rate * float64(time.Second))
}

// String renders the load as the scenario call that declares it:
// concurrency(...), rate(...) or replay(...). `llmbench check`, str() in
// a scenario and report.html all show this.
func (l Load) String() string {
	if l.Replay() {
		return "replay(speed=" + Num(l.ReplaySpeed) + ")"
	}
	if l.Staged() {
		return l.stagesString()
	}
	ramp := ""
	if l.RampUp > 0 {
		ramp = fmt.Sprintf(", ramp_up=%q", l.RampUp.String())
	}
	if l.Paced() {
		return fmt.Sprintf("users(%d, qps=%s%s)", l.Users, Num(l.Rate), ramp)
	}
	if l.Closed() {
		return fmt.Sprintf("concurrency(%d%s)", l.Concurrency, ramp)
	}
	args := []string{Num(l.Rate), "arrival=" + strconv.Quote(string(l.Arrival))}
	if l.Arrival == Gamma || l.Burstiness != 1 {
		args = append(args, "burstiness="+Num(l.Burstiness))
	}
	if l.MaxConcurrency > 0 {
		args = append(args, "max_concurrency="+strconv.Itoa(l.MaxConcurrency))
	}
	return "rate(" + strings.Join(args, ", ") + ramp + ")"
}

// Num writes a number as a scenario would: 16, 0.5, 1e-06, one spelling
// for the plan's String and the messages that quote a plan's numbers.
func Num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Replay reports whether the load replays timestamps.
func (l Load) Replay() bool { return l.ReplaySpeed > 0 }

// Stop ends the measurement after a number of requests or a duration,
// or, for conversations, a number of sessions.
type Stop struct {
	// Requests counts requests; for conversations, turns.
	Requests int
	Duration time.Duration
	// Sessions ends a conversation point once that many measured sessions
	// have started (GenAI-Perf's --num-sessions); they run to their end.
	Sessions int
	// Steady, when set, makes the point auto (requests="auto",
	// duration="auto"): it stops as soon as the rule is met, and Requests
	// or Duration is then the rule's cap (reaching it: not converged).
	Steady *metrics.SteadyRule
}
