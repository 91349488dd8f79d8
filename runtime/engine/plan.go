package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// Point is one measured load point.
type Point struct {
	Load plan.Load
	Stop plan.Stop
	// Warmup requests are sent first, at the same load, and never measured.
	Warmup int
	// Seed makes the arrival schedule reproducible.
	Seed uint64
	// Grace is how long an interrupted run waits for requests in flight
	// before abandoning them.
	Grace time.Duration
	// Progress, when set, is updated as measured requests finish.
	Progress *Progress
	// OnRecord, when set, receives every measured record as it finishes
	// (before token counting), never after Run has returned.
	OnRecord func(metrics.Record)
	// OnWarmup, when set, hears when each warm-up request finished (its
	// Done), never after Run has returned: the server's telemetry window
	// starts after the last one.
	OnWarmup func(done int64)
	// AfterWarmup, when set, makes a closed loop with a warm-up a phase
	// apart: once every warm-up request has finished it is called, and
	// no measured request is sent before it returns. Telemetry uses it
	// to take the scrape that starts the server's window, so no measured
	// request finishes beside the warm-up's and out of the server's
	// figures. Open loops and replays keep their schedule and ignore it.
	AfterWarmup func()
	// Shard is this process's part of a sharded run (see Shard); its
	// counts are already this shard's share (shardPoint).
	Shard Shard
	// StartAt, when set, is the instant every shard starts the point at:
	// nothing is sent before it, and an open loop's schedule counts from it.
	StartAt time.Time
	// Halt, when set, stops issuing once fired (an auto point that has
	// measured enough); see Halt.
	Halt *Halt
}

// Validate reports every problem with the point at once.
func (p Point) Validate() error {
	var errs []error
	l := p.Load
	switch {
	case l.Concurrency < 0:
		errs = append(errs, fmt.Errorf("concurrency must be >= 1, got %d", l.Concurrency))
	case l.Rate < 0:
		errs = append(errs, fmt.Errorf("request rate must be > 0, got %g", l.Rate))
	case l.Concurrency > 0 && l.Rate > 0:
		errs = append(errs, errors.New("concurrency and request rate are mutually exclusive"))
	case l.Replay() && (l.Concurrency > 0 || l.Rate > 0):
		errs = append(errs, errors.New("a replay has its own schedule: no concurrency or request rate"))
	case l.Concurrency == 0 && l.Rate == 0 && !l.Replay():
		errs = append(errs, errors.New("a load needs a concurrency, a request rate or a replay"))
	}
	if l.Rate > 0 && l.Arrival == plan.Gamma && l.Burstiness <= 0 {
		errs = append(errs, fmt.Errorf("burstiness must be > 0, got %g", l.Burstiness))
	}
	if l.Users < 0 || (l.Users > 0 && (l.Rate <= 0 || l.Concurrency > 0 || l.Replay())) {
		errs = append(errs, fmt.Errorf("users(%d, qps=%g): want users >= 1 and qps > 0, without a concurrency or replay", l.Users, l.Rate))
	}
	if l.RampUp < 0 || (l.RampUp > 0 && l.Replay()) {
		errs = append(errs, fmt.Errorf("ramp-up %s: want a duration >= 0, and none for a replay (it keeps the trace's own timing)", l.RampUp))
	}
	if l.MaxConcurrency < 0 {
		errs = append(errs, fmt.Errorf("max concurrency must be >= 0, got %d", l.MaxConcurrency))
	}
	if stopCount(p.Stop) != 1 && !l.Replay() {
		errs = append(errs, errors.New("give exactly one of a request count, a measurement duration or a session count"))
	}
	if p.Stop.Steady != nil && (p.Stop.Sessions > 0 || p.Stop.Requests == 0 && p.Stop.Duration == 0) {
		errs = append(errs, errors.New("an auto point needs a request count or duration cap and no session count"))
	}
	if p.Stop.Requests < 0 || p.Stop.Duration < 0 || p.Stop.Sessions < 0 || p.Warmup < 0 {
		errs = append(errs, errors.New("request count, duration and warmup must not be negative"))
	}
	errs = append(errs, stagesErrors(p)...)
	return errors.Join(errs...)
}

// stopCount is how many stop conditions are set.
func stopCount(s plan.Stop) int {
	n := 0
	for _, set := range []bool{s.Requests > 0, s.Duration > 0, s.Sessions > 0} {
		if set {
			n++
		}
	}
	return n
}
