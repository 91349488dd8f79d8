package engine

import "time"

// closedLoop keeps Concurrency requests in flight: each worker sends its
// next request the moment its previous one ends. Under a profile
// (ramp_up, stages) the workers run over their spans (workerSpans).
func (r *run) closedLoop() {
	if r.p.Warmup > 0 && r.p.AfterWarmup != nil {
		r.warmGate = make(chan struct{})
	}
	start := r.clock.Now()
	r.stagesFrom = start
	for _, spans := range workerSpans(workerSteps(r.p.Load)) {
		r.wg.Go(func() {
			for _, s := range spans {
				if !r.work(start+int64(s.On), s.Off, start+int64(s.Off)) {
					return
				}
			}
		})
	}
}

// work is one span of a worker: from on it sends request after request
// until the point is done (false) or, when the span ends (off > 0), the
// instant until has passed (true: the worker may run again later).
func (r *run) work(on int64, off time.Duration, until int64) bool {
	if !r.sleepUntil(on) {
		return false
	}
	for off < 0 || r.clock.Now() < until {
		i, ok := r.ticket()
		if !ok {
			return false
		}
		r.send(i, 0)
	}
	return true
}

// ticket hands out the next request index, or false when the point is done.
func (r *run) ticket() (int64, bool) {
	if r.ctx.Err() != nil || r.p.Halt.Stopped() {
		return 0, false
	}
	w := int64(r.p.Warmup)
	i := r.issued.Add(1) - 1
	if i >= w && !r.pastWarmup() {
		return 0, false
	}
	if n := int64(r.p.Stop.Requests); n > 0 {
		return i, i < w+n
	}
	now := r.clock.Now()
	if i == w {
		r.stopAt.Store(now + int64(r.p.Stop.Duration))
	}
	stop := r.stopAt.Load()
	return i, i <= w || stop == 0 || now < stop
}

// pastWarmup waits, when the warm-up is a phase apart (warmGate), until
// it is over; false when the point is interrupted meanwhile.
func (r *run) pastWarmup() bool {
	if r.warmGate == nil {
		return true
	}
	select {
	case <-r.warmGate:
		return true
	case <-r.ctx.Done():
		return false
	case <-r.p.Halt.Done():
		return false
	}
}
