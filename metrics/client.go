package metrics

import (
	"fmt"
	"math"
)

// The thresholds of JudgeClient (docs/metrics.md, "The client judges
// itself"). They are deliberately loose: a verdict must mean the client,
// not noise, limited the load.
const (
	// ClientCPUBusy is the share of the cores available to the process
	// above which the client itself is the bottleneck.
	ClientCPUBusy = 0.90
	// ClientRateShortfall: an open loop sending under this share of its
	// target rate fell behind...
	ClientRateShortfall = 0.95
	// ClientLagBehind: ...when its p99 schedule lag is also beyond this (ns),
	// so a short run's last-interval rounding is not called a shortfall.
	ClientLagBehind = 50e6
	// ClientConcurrencyShortfall: a closed loop keeping under this share of
	// its target in flight on average did not keep its load.
	ClientConcurrencyShortfall = 0.90
	// ClientClosedLoopRounds: the closed-loop rule needs this many
	// requests per slot, so the last round draining (fewer in flight at
	// the end, by design) is not taken for a client that fell short.
	ClientClosedLoopRounds = 10
)

// ClientInput is what the client measured of itself during a point.
type ClientInput struct {
	// CPUSeconds is the process's CPU time (user + system) over the point
	// and WallSeconds its length; Cores the CPUs the process may use
	// (GOMAXPROCS).
	CPUSeconds, WallSeconds float64
	Cores                   int
	// SharedProcess says the server ran in this process too (sim://): its
	// CPU cannot be told from the client's, so CPU is not judged.
	SharedProcess bool
	// TargetRate is an open loop's requests per second (0 in a closed
	// loop); MaxConcurrency its cap on requests in flight (0: none).
	TargetRate     float64
	MaxConcurrency int
	// TargetConcurrency is a closed loop's requests in flight.
	TargetConcurrency int
	// Dropped counts the arrivals an open loop without max_concurrency did
	// not send because InFlight requests were already in flight.
	Dropped, InFlight int
	// Summary holds what was achieved: the rate, the schedule lag, the
	// mean requests in flight.
	Summary *Summary
}

// ClientVerdict says whether the client, not the server, limited a
// point's load, and why, in words.
type ClientVerdict struct {
	Limited bool `json:"client_limited"`
	// Reasons say what limited it (or, when not limited, what could not
	// be judged).
	Reasons []string `json:"reasons"`
	// CPUShare is the client's CPU over the point as a share of its cores;
	// null when it could not be told from the server's.
	CPUShare *float64 `json:"cpu_share"`
	Cores    int      `json:"cores"`
	// CapBound says an open loop's requests waited for max_concurrency:
	// the server was slow, not the client.
	CapBound bool `json:"cap_bound"`
	// DroppedArrivals counts the arrivals an open loop without
	// max_concurrency dropped at its in-flight bound (omitted when none).
	DroppedArrivals int `json:"dropped_arrivals,omitempty"`
}

// JudgeClient applies the client rules: the client is limited when it
// used ClientCPUBusy of its cores (judged only when the server ran
// elsewhere), when an open loop fell behind its schedule (achieved rate
// under ClientRateShortfall of the target and p99 lag beyond
// ClientLagBehind) without its max_concurrency cap being what held it,
// or when a closed loop of at least ClientClosedLoopRounds requests per
// slot kept under ClientConcurrencyShortfall of its target in flight.
func JudgeClient(in ClientInput) ClientVerdict {
	v := ClientVerdict{Reasons: []string{}, Cores: in.Cores}
	busy := false
	switch {
	case in.SharedProcess:
		v.Reasons = append(v.Reasons, "the client's CPU is not judged: the simulator ran in the same process")
	case in.WallSeconds > 0 && in.Cores > 0:
		share := in.CPUSeconds / in.WallSeconds / float64(in.Cores)
		v.CPUShare = &share
		if share >= ClientCPUBusy {
			busy = true
			v.Limited = true
			v.Reasons = append(v.Reasons, fmt.Sprintf("the client used %.0f%% of its %d cores", 100*share, in.Cores))
		}
	}
	if in.Dropped > 0 {
		v.Limited, v.DroppedArrivals = true, in.Dropped
		v.Reasons = append(v.Reasons, fmt.Sprintf("%d arrivals were dropped: the %d requests in flight the client's open-file limit allows were all waiting for the server",
			in.Dropped, in.InFlight))
	}
	s := in.Summary
	if s == nil {
		return v
	}
	switch {
	case in.TargetRate > 0:
		v.judgeOpenLoop(in, s, busy)
	case in.TargetConcurrency > 0 && s.Completed+s.Failed >= ClientClosedLoopRounds*in.TargetConcurrency &&
		s.MeanConcurrency > 0 && s.MeanConcurrency < ClientConcurrencyShortfall*float64(in.TargetConcurrency):
		v.Limited = true
		v.Reasons = append(v.Reasons, fmt.Sprintf("the client kept %.1f of %d requests in flight on average", s.MeanConcurrency, in.TargetConcurrency))
	}
	return v
}

func (v *ClientVerdict) judgeOpenLoop(in ClientInput, s *Summary, busy bool) {
	lag := math.NaN()
	if s.ScheduleLag != nil {
		lag = s.ScheduleLag.Percentile(99)
	}
	if !(s.AchievedRequestRate < ClientRateShortfall*in.TargetRate && lag > ClientLagBehind) {
		return
	}
	if in.MaxConcurrency > 0 && s.MeanConcurrency >= ClientConcurrencyShortfall*float64(in.MaxConcurrency) && !busy {
		v.CapBound = true
		v.Reasons = append(v.Reasons, fmt.Sprintf("requests waited for the max_concurrency cap of %d (the server, not the client, was slow): sent %.1f/s of %.1f/s",
			in.MaxConcurrency, s.AchievedRequestRate, in.TargetRate))
		return
	}
	v.Limited = true
	v.Reasons = append(v.Reasons, fmt.Sprintf("the client fell behind its schedule: sent %.1f/s of %.1f/s, p99 schedule lag %.0f ms",
		s.AchievedRequestRate, in.TargetRate, lag/1e6))
}

// Flag is the verdict as a gate reads it: 1 when client-limited, else 0.
func (v *ClientVerdict) Flag() float64 {
	if v.Limited {
		return 1
	}
	return 0
}
