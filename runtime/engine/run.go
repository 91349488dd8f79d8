// Package engine owns when each request of a point is sent: the closed
// loop, the open loop on seeded arrivals, replay, conversations, users,
// ramp-up, a shard's part and shared start, and the in-flight bound. It
// plans on a Clock, so every scheduler is tested on a fake one, exactly,
// and it hands requests to a Sender (transport.Client) and finished
// records to Point.OnRecord. It knows nothing of token counting,
// summaries or files.
package engine

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// Sender sends one request body and records what happened;
// transport.Client is the real one.
type Sender interface {
	Send(ctx context.Context, body []byte, rec *metrics.Record)
}

// Clock is the time a scheduler plans on: stamps in ns since the Unix
// epoch (the records' own, so a record's Sent − Scheduled is its lag), a
// shared start read onto it, and a timer until a planned instant.
// *transport.Clock is the real one; tests run the schedulers on a fake
// one, so planned instants are checked exactly and at once.
type Clock interface {
	Now() int64
	FromTime(t time.Time) int64
	Timer(at int64) (fired <-chan time.Time, stop func() bool)
}

// Request is one prepared request of the dataset, cycled through in order.
type Request struct {
	Body []byte
	// Text is the prompt as token counting sees it (chat: the message
	// contents joined by " ", no template).
	Text string
	// Words is the prompt's length in built-in words, the stand-in count
	// when neither a tokenizer nor server usage is available.
	Words     int
	Component string
	// At is the entry's send offset when its dataset is replayed.
	At time.Duration
	// ExpectedChunks is how many chunks the answer should stream: its
	// max_tokens when the endpoint streams, else 0. It sizes the record's
	// chunk lists before the stream arrives.
	ExpectedChunks int
}

// Result is what a point produced.
type Result struct {
	// Records holds every measured request that completed or failed, in
	// send order. Warmup requests and requests abandoned by an interrupt
	// are not in it. It is nil when Point.OnRecord is set: the records
	// went there instead, so a long run does not hold them all.
	Records []metrics.Record
	// Interrupted is set when the run was cancelled before its stop
	// condition: the records are real but partial.
	Interrupted bool
	// Started is when the point began issuing requests, on its clock:
	// after the wait for a shared start.
	Started int64
	// Dropped counts the measured arrivals of an open loop or replay
	// without max_concurrency (sessions, in a conversation) that found
	// InFlightBound requests in flight at their planned instant and were
	// not sent.
	Dropped int
}

// openLoopLead delays the first open-loop arrival so it is not late.
const openLoopLead = 5 * time.Millisecond

// Run executes one point against s, cycling through reqs. Cancelling ctx
// stops issuing requests, waits up to p.Grace for those in flight, then
// returns what completed.
func Run(ctx context.Context, p Point, s Sender, clock Clock, reqs []Request) *Result {
	return execute(ctx, p, s, clock, func(r *run) {
		r.reqs, r.entryBase = shardRequests(reqs, p)
		switch {
		case p.Load.Closed():
			r.closedLoop()
		case p.Load.Replay():
			r.replay()
		default:
			r.openLoop()
		}
	})
}

// execute issues a point's requests with issue, then waits for those in
// flight and collects the records: what single-turn and conversation
// points share.
func execute(ctx context.Context, p Point, s Sender, clock Clock, issue func(*run)) *Result {
	sendCtx, cancelSend := context.WithCancel(context.Background())
	defer cancelSend()
	r := &run{p: p, s: s, clock: clock, sendCtx: sendCtx, ctx: ctx}
	if !p.StartAt.IsZero() && !r.sleepUntil(clock.FromTime(p.StartAt)) {
		return &Result{Interrupted: true, Started: clock.Now()}
	}
	started := clock.Now()
	issue(r)
	r.wait(ctx, cancelSend)
	return &Result{Records: r.collected(), Interrupted: ctx.Err() != nil, Started: started, Dropped: int(r.dropped.Load())}
}

type run struct {
	p       Point
	s       Sender
	clock   Clock
	reqs    []Request
	ctx     context.Context
	sendCtx context.Context

	entryBase int // the whole dataset's index of reqs[0] (shardRequests)

	issued atomic.Int64 // tickets handed out (closed loop)
	stopAt atomic.Int64 // end of a duration-bound closed loop, ns
	wg     sync.WaitGroup

	// warmed counts finished warm-up requests; warmGate, when not nil, is
	// closed once all have finished and Point.AfterWarmup has returned.
	warmed   atomic.Int64
	warmGate chan struct{}

	// dropped counts measured arrivals dropped at InFlightBound.
	dropped atomic.Int64

	mu     sync.Mutex
	recs   []metrics.Record
	sealed bool // set once results are returned; late records are dropped
	// delivering counts records being handed to Point.OnRecord, outside
	// mu: collected waits for them, so none arrives after Run returns.
	delivering sync.WaitGroup
}

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

// openLoop sends each request at its planned instant, independently of
// how the previous ones are doing.
func (r *run) openLoop() {
	sched := newSchedule(r.p.Load, r.p.Seed)
	slots := r.slots()
	start := r.origin()
	w, n := int64(r.p.Warmup), int64(r.p.Stop.Requests)
	var measureFrom int64
	for i := int64(0); n == 0 || i < w+n; i++ {
		due := start + int64(sched.next())
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

// sleepUntil waits until due on the run's clock; false when the run was
// interrupted or halted first.
func (r *run) sleepUntil(due int64) bool {
	if due <= r.clock.Now() {
		return r.ctx.Err() == nil && !r.p.Halt.Stopped()
	}
	fired, stop := r.clock.Timer(due)
	defer stop()
	select {
	case <-fired:
		return true
	case <-r.ctx.Done():
		return false
	case <-r.p.Halt.Done():
		return false
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

func (r *run) send(i, scheduled int64) {
	req := &r.reqs[i%int64(len(r.reqs))]
	rec := metrics.Record{
		ID:        i - int64(r.p.Warmup),
		Entry:     r.entryBase + int(i%int64(len(r.reqs))),
		Component: req.Component,
		Scheduled: scheduled,
	}
	rec.ExpectChunks(req.ExpectedChunks)
	r.s.Send(r.sendCtx, req.Body, &rec)
	rec.FitChunks() // whatever the outcome: a failed request reserved as much
	r.record(&rec)
}

// record takes a finished request: a warm-up one only moves the progress,
// a cancelled one is dropped, a measured one goes to OnRecord or the
// collected records.
func (r *run) record(rec *metrics.Record) {
	if rec.ID < 0 {
		r.p.Progress.warmedUp()
		if r.p.OnWarmup != nil {
			r.p.OnWarmup(rec.Done)
		}
		if r.warmGate != nil && r.warmed.Add(1) == int64(r.p.Warmup) {
			r.p.AfterWarmup()
			close(r.warmGate)
		}
		return
	}
	if rec.Err != nil && rec.Err.Class == metrics.ErrCanceled {
		return
	}
	r.p.Progress.observe(rec)
	r.mu.Lock()
	switch {
	case r.sealed:
		r.mu.Unlock()
		return
	case r.p.OnRecord == nil:
		r.recs = append(r.recs, *rec)
		r.mu.Unlock()
		return
	}
	r.delivering.Add(1)
	r.mu.Unlock()
	// Outside the lock: a consumer that is slow to take the record (a
	// full channel behind a parquet write) holds up this request alone.
	r.p.OnRecord(*rec)
	r.delivering.Done()
}

// wait lets requests in flight finish. After an interrupt it gives them
// p.Grace, then cancels them and stops waiting.
func (r *run) wait(ctx context.Context, cancelSend context.CancelFunc) {
	finished := make(chan struct{})
	go func() { r.wg.Wait(); close(finished) }()
	select {
	case <-finished:
		return
	case <-ctx.Done():
	}
	if !r.within(finished, r.p.Grace) {
		cancelSend()
		// Cancelled requests end at once, whether streaming or waiting for
		// their headers; one still connecting may not.
		r.within(finished, time.Second)
	}
}

// within waits up to d on the run's clock for done to close.
func (r *run) within(done <-chan struct{}, d time.Duration) bool {
	fired, stop := r.clock.Timer(r.clock.Now() + int64(d))
	defer stop()
	select {
	case <-done:
		return true
	case <-fired:
		return false
	}
}

func (r *run) collected() []metrics.Record {
	r.mu.Lock()
	r.sealed = true
	r.mu.Unlock()
	r.delivering.Wait()
	slices.SortFunc(r.recs, func(a, b metrics.Record) int { return int(a.ID - b.ID) })
	return r.recs
}
