package engine

// closedLoop keeps exactly Concurrency requests in flight: each worker
// sends its next request the moment its previous one ends.
func (r *run) closedLoop() {
	if r.p.Warmup > 0 && r.p.AfterWarmup != nil {
		r.warmGate = make(chan struct{})
	}
	start := r.clock.Now()
	for w := range r.p.Load.Concurrency {
		r.wg.Go(func() {
			if !r.sleepUntil(start + int64(rampStart(w, r.p.Load.Concurrency, r.p.Load.RampUp))) {
				return
			}
			for {
				i, ok := r.ticket()
				if !ok {
					return
				}
				r.send(i, 0)
			}
		})
	}
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
