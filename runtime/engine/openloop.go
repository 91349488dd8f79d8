package engine

import "github.com/llmbench/llmbench/runtime/plan"

// openLoop sends each request at its planned instant, independently of
// how the previous ones are doing.
func (r *run) openLoop() {
	sched := newSchedule(r.p.Load, r.p.Seed)
	slots := r.slots()
	start := r.origin()
	r.stagesFrom = start
	w, n := int64(r.p.Warmup), int64(r.p.Stop.Requests)
	var measureFrom int64
	for i := int64(0); n == 0 || i < w+n; i++ {
		due := start + int64(sched.next())
		if end := sched.end(); end > 0 && due >= start+int64(end-plan.StageSlack) {
			return
		}
		if i == w {
			measureFrom = due
		}
		if n == 0 && i > w && due > measureFrom+int64(r.p.Stop.Duration) {
			return
		}
		if !r.p.Shard.Owns(i) {
			continue
		}
		if !r.dispatch(i, due, slots) {
			return
		}
	}
}

// replay sends every dataset entry once, at its own timestamp scaled by
// the speed; the first Warmup entries warm up and are not measured, and a
// request count or duration, when set, ends the replay early.
func (r *run) replay() {
	slots := r.slots()
	start := r.origin()
	w, n := int64(r.p.Warmup), int64(r.p.Stop.Requests)
	for i := int64(0); i < int64(len(r.reqs)) && (n == 0 || i < w+n); i++ {
		due := start + int64(float64(r.reqs[i].At)/r.p.Load.ReplaySpeed)
		if d := r.p.Stop.Duration; d > 0 && i > w && due-start > int64(d) {
			return
		}
		if !r.p.Shard.Owns(i) {
			continue
		}
		if !r.dispatch(i, due, slots) {
			return
		}
	}
}

// origin is the instant an open loop's schedule counts from: the shared
// start every shard was given, or now; plus the lead that keeps the first
// arrival from being late.
func (r *run) origin() int64 {
	if !r.p.StartAt.IsZero() {
		return r.clock.FromTime(r.p.StartAt) + int64(openLoopLead)
	}
	return r.clock.Now() + int64(openLoopLead)
}

// slots is the in-flight semaphore of an open loop or replay, of
// InFlightBound slots.
func (r *run) slots() chan struct{} {
	return make(chan struct{}, InFlightBound(r.p.Load))
}

// dispatch sends request i at its planned time in its own goroutine, once
// a slot is free; false when the run was interrupted first.
func (r *run) dispatch(i, due int64, slots chan struct{}) bool {
	if !r.sleepUntil(due) {
		return false
	}
	switch ok, late := r.admitArrival(slots); {
	case !ok:
		return false
	case late:
		r.drop(i)
		return true
	}
	r.wg.Go(func() {
		r.send(i, due)
		<-slots
	})
	return true
}

// admitArrival takes an in-flight slot for an arrival due now. Under
// max_concurrency it waits for one (the wait is the arrival's schedule
// lag); without, a full bound makes the arrival late: it is dropped
// (InFlightBound). ok is false when the run was interrupted first.
func (r *run) admitArrival(slots chan struct{}) (ok, late bool) {
	if r.p.Load.MaxConcurrency > 0 {
		return r.acquire(slots), false
	}
	select {
	case slots <- struct{}{}:
		return true, false
	default:
		return true, true
	}
}

// drop counts arrival i, not sent for want of a slot: a measured one in
// Result.Dropped, a warm-up one as a warm-up over (telemetry waits for
// every warm-up before its window starts).
func (r *run) drop(i int64) {
	if i >= int64(r.p.Warmup) {
		r.dropped.Add(1)
		return
	}
	r.p.Progress.warmedUp()
	if r.p.OnWarmup != nil {
		r.p.OnWarmup(r.clock.Now())
	}
}

// acquire takes a slot under a max-concurrency cap, waiting if needed.
func (r *run) acquire(slots chan struct{}) bool {
	if slots == nil {
		return true
	}
	select {
	case slots <- struct{}{}:
		return true
	case <-r.ctx.Done():
		return false
	case <-r.p.Halt.Done():
		return false
	}
}
