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
	// Media counts the pictures and clips the body carries, which every
	// record of the request keeps.
	Media metrics.Media
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
	// StagesFrom is when a stages() load's first stage started, on its
	// clock: a record's stage is read from its times against it.
	StagesFrom int64
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
	return &Result{Records: r.collected(), Interrupted: ctx.Err() != nil, Started: started, Dropped: int(r.dropped.Load()), StagesFrom: r.stagesFrom}
}

type run struct {
	p       Point
	s       Sender
	clock   Clock
	reqs    []Request
	ctx     context.Context
	sendCtx context.Context

	entryBase int // the whole dataset's index of reqs[0] (shardRequests)

	// stagesFrom is the instant a stages() load's first stage starts.
	stagesFrom int64

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

func (r *run) send(i, scheduled int64) {
	req := &r.reqs[i%int64(len(r.reqs))]
	rec := metrics.Record{
		ID:        i - int64(r.p.Warmup),
		Entry:     r.entryBase + int(i%int64(len(r.reqs))),
		Component: req.Component,
		Scheduled: scheduled,
		Media:     req.Media,
	}
	rec.ExpectChunks(req.ExpectedChunks)
	r.p.Progress.sending(1)
	r.s.Send(r.sendCtx, req.Body, &rec)
	r.p.Progress.sending(-1)
	r.stamp(&rec)
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
