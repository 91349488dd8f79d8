package engine

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// This file plans a load's profile (plan.Load.Profile: the stages() given,
// or ramp_up as one ramp from 0 then held), k6's stages semantics: the
// target moves linearly between the stages' targets.
//
// An open loop's arrivals keep their process (Poisson stays Poisson): its
// offsets are drawn at the peak rate as always, read as expected counts,
// and each count is due when the profile's rate has accumulated it
// (timeWarp). A closed loop's worker k (from 1) runs while the target
// exceeds k−1: it starts the instant the target rises past k−1 (a ramp
// from 0 starts its first worker at once, as ramp_up always has) and stops
// the instant it falls to k−1 (k6's ramp-down), after the request it has
// in flight, which is measured.

// timeWarp maps offsets of an arrival process at a constant peak rate onto
// the instants the profile's rate makes them due.
type timeWarp struct {
	peak   float64
	start  float64
	stages []plan.Stage
	hold   bool // past the last stage its target holds; else the load ends
}

// newTimeWarp is the warp of l's profile; nil when l has none (an offset
// is then its own instant).
func newTimeWarp(l plan.Load) *timeWarp {
	start, stages, hold := l.Profile()
	if len(stages) == 0 || l.Closed() {
		return nil
	}
	return &timeWarp{peak: l.Rate, start: start, stages: stages, hold: hold}
}

// at is the instant, in seconds from the start, of the arrival at offset
// u seconds of the peak-rate process: the instant t at which the
// profile's expected count ∫₀ᵗ rate reaches u·peak. Within a stage whose
// rate goes from a to b over d, the count after τ is a·τ + (b−a)·τ²/(2d),
// solved for τ in the form that stays exact when a is 0 or b equals a.
// Past the last stage of a load that ends there it is +Inf.
func (w *timeWarp) at(u float64) float64 {
	count := u * w.peak
	t, a := 0.0, w.start
	for _, s := range w.stages {
		d, b := s.Duration.Seconds(), s.Target
		area := (a + b) / 2 * d
		if count <= area && area > 0 {
			if count <= 0 {
				return t
			}
			k := (b - a) / d
			return t + 2*count/(a+math.Sqrt(max(0, a*a+2*k*count)))
		}
		count -= area
		t, a = t+d, b
	}
	if !w.hold || a <= 0 {
		return math.Inf(1)
	}
	return t + count/a
}

// step is the closed loop's worker count from At on.
type step struct {
	At      time.Duration
	Workers int
}

// workerSteps are the instants a closed loop's worker count changes under
// its profile, from 0 s: the first holds the count at the start; a load
// that ends with its last stage ends with a step to 0 workers there.
// Crossing instants are computed in integer ns, so a ramp over R from 0 to
// n starts worker k at exactly R·(k−1)/n.
func workerSteps(l plan.Load) []step {
	start, stages, hold := l.Profile()
	if len(stages) == 0 {
		return []step{{0, l.Concurrency}}
	}
	from := int(math.Ceil(start))
	steps := []step{{0, from}}
	var t time.Duration
	for _, s := range stages {
		to := int(math.Ceil(s.Target))
		steps = append(steps, crossings(t, s.Duration, from, to)...)
		t, from = t+s.Duration, to
	}
	if !hold {
		steps = append(steps, step{t, 0})
	}
	return steps
}

// crossings are the count changes of one linear stage from a to b
// workers over d, starting at t0: rising, worker L+1 starts when the
// target passes L; falling, the count drops to L when the target reaches
// L. A stage of 0 s jumps at t0.
func crossings(t0, d time.Duration, a, b int) []step {
	var out []step
	switch {
	case d == 0 && a != b:
		out = append(out, step{t0, b})
	case a < b:
		for level := a; level < b; level++ {
			out = append(out, step{t0 + time.Duration(int64(d)*int64(level-a)/int64(b-a)), level + 1})
		}
	case a > b:
		for level := a - 1; level >= b; level-- {
			out = append(out, step{t0 + time.Duration(int64(d)*int64(a-level)/int64(a-b)), level})
		}
	}
	return out
}

// span is one stretch of time a worker runs, from On until Off (Off < 0:
// until the stop condition).
type span struct{ On, Off time.Duration }

// workerSpans turns the steps into each worker's spans, worker k (from 0)
// running while the count exceeds k.
func workerSpans(steps []step) [][]span {
	peak := 0
	for _, s := range steps {
		peak = max(peak, s.Workers)
	}
	spans := make([][]span, peak)
	prev := 0
	for _, s := range steps {
		for k := prev; k < s.Workers; k++ {
			spans[k] = append(spans[k], span{On: s.At, Off: -1})
		}
		for k := s.Workers; k < prev; k++ {
			spans[k][len(spans[k])-1].Off = s.At
		}
		prev = s.Workers
	}
	return spans
}

// rampStart is when the i-th of n workers (or users) starts under
// ramp_up: its first span under the profile of one ramp to n.
func rampStart(i, n int, ramp time.Duration) time.Duration {
	if ramp <= 0 || n <= 0 {
		return 0
	}
	return workerSpans(workerSteps(plan.Load{Concurrency: n, RampUp: ramp}))[i][0].On
}

// stagesErrors are the problems of a stages() point: it ends with its
// last stage (its stop is the stages' duration), it has no warm-up (make
// the first stage one and gate on the others), and it runs unsharded.
func stagesErrors(p Point) []error {
	l := p.Load
	if !l.Staged() {
		return nil
	}
	var errs []error
	for i, s := range l.StageList() {
		if s.Duration < 0 || s.Target < 0 || l.Closed() && s.Target != math.Trunc(s.Target) {
			errs = append(errs, fmt.Errorf("stage %d (%s, %s): want a duration >= 0 and a target >= 0 (a whole number of workers under a closed loop)", i, s.Duration, plan.Num(s.Target)))
		}
	}
	if p.Stop != (plan.Stop{Duration: l.StagesDuration()}) {
		errs = append(errs, fmt.Errorf("a stages() load ends with its last stage: its stop is the stages' %s, no request count or other duration", l.StagesDuration()))
	}
	if p.Warmup > 0 || l.RampUp > 0 || l.Replay() || l.Paced() || p.Shard.Sharded() {
		errs = append(errs, errors.New("a stages() load has no warm-up, ramp-up, replay, users or shards: make the first stage the warm-up and gate on the others with @ stage="))
	}
	return errs
}

// stamp records the stage a finished request was sent in
// (plan.Load.StageOf), as a stored run's records are read back.
func (r *run) stamp(rec *metrics.Record) {
	if r.p.Load.Staged() {
		rec.Stage = r.p.Load.StageOf(rec, r.stagesFrom)
	}
}
