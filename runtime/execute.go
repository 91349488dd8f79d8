package runtime

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
)

// Job is everything needed to measure one point.
type Job struct {
	Endpoint plan.Endpoint
	Entries  []dataset.Entry
	// Requests are the rendered bodies of Entries (see Requests); built
	// here when nil.
	Requests []engine.Request
	// Sessions, when set, make the point a conversation: Entries are then
	// their turns, flattened, and each turn is rendered with its history
	// as it is sent.
	Sessions []dataset.Session
	Point    engine.Point
	Count    CountMode
	// Tokenizer is required when Count is ByTokenizer.
	Tokenizer Tokenizer
	Goodput   []metrics.SLO
	// Records, when set, receives every measured record, token-counted,
	// as the run goes (records.parquet, the raw export), so a crash loses
	// at most what the writer had not yet flushed.
	Records RecordWriter
	// Budget, when set, stops the run once too many requests failed.
	Budget *plan.ErrorBudget
	// Track names the metrics a baseline gate compares on: the outcome
	// keeps their per-request values in Series (not the records).
	Track []*metrics.Metric
	// Telemetry is what is scraped while the point runs.
	Telemetry TelemetryPlan
	// Rendezvous, when set, gives the point its shared start (Point.StartAt).
	Rendezvous Rendezvous
	// CostPerHour and Currency price the point's tokens.
	CostPerHour float64
	Currency    string
}

// PointError is a point that could not be measured, named by its
// experiment and point: a command that has one point (profile) speaks of
// the point alone.
type PointError struct {
	Experiment, Point string
	Err               error
}

func (e *PointError) Error() string {
	return fmt.Sprintf("experiment %q, point %s: %v", e.Experiment, e.Point, e.Err)
}

// Unwrap keeps the cause's failure class and identity.
func (e *PointError) Unwrap() error { return e.Err }

// RecordWriter takes finished records in completion order.
type RecordWriter interface {
	Write(recs ...metrics.Record) error
}

// Outcome is a measured point: how tokens were counted and the reduced
// metrics. The records themselves went to Job.Records as they finished and
// are not kept, so memory does not grow with the number of requests.
type Outcome struct {
	// Target is the URL requests went to (the simulator's real address for
	// sim://).
	Target string
	// Interrupted is set when the run was cancelled before its stop
	// condition: the summary is real but partial.
	Interrupted bool
	Counting    Counting
	Summary     metrics.Summary
	// Components summarizes each dataset component on its own, by name,
	// when the requests came from a mix of two or more; nil otherwise.
	Components []ComponentSummary
	// Replicas summarizes each replica on its own, in the endpoint's URL
	// order, when the endpoint has two or more; nil otherwise.
	Replicas []ReplicaSummary
	// Stages summarizes each stage of a stages() load on its own, in
	// order; nil for any other load. StagesFrom is when its first stage
	// started (ns), which a stored run's records are staged against.
	Stages     []StageSummary
	StagesFrom int64
	// Goodput are the SLOs the summary's goodput was judged against.
	Goodput []metrics.SLO
	// RecordsErr is the first error of Job.Records; the measurement itself
	// is still complete in Summary.
	RecordsErr error
	// Aborted is set when the error budget stopped the run (Interrupted is
	// then set too): the caller keeps the run, then stops.
	Aborted *BudgetExceeded
	// Series holds what baseline gates compare on (Job.Track); nil when
	// nothing was tracked.
	Series *metrics.Series
	// Telemetry is what was scraped during the run; nil when nothing was.
	Telemetry *PointTelemetry
	// Shard says which shard measured the point and when it really
	// started; nil for an unsharded run.
	Shard *ShardRun
	// Steady is what an auto point's steady-state rule did; nil for a
	// point with a fixed stop.
	Steady *SteadyOutcome
	// Shards is, for a point merged from shards, each shard's share and
	// start (see StartSkew); nil otherwise.
	Shards []ShardShare
}

// ComponentSummary is one dataset component's share of a point, reduced
// with the same definitions as the whole.
type ComponentSummary struct {
	Name    string          `json:"name"`
	Summary metrics.Summary `json:"summary"`
}

// Execute runs one point end to end: it starts the simulator for sim://,
// checks the target answers, sends the load and reduces the records.
func Execute(ctx context.Context, job Job) (*Outcome, error) {
	if err := job.Point.Validate(); err != nil {
		return nil, failure.New(failure.Input, err)
	}
	if len(job.Entries) == 0 {
		return nil, failure.Inputf("the dataset has no entries")
	}
	bases, stop, err := resolveReplicas(job.Endpoint)
	if err != nil {
		return nil, err
	}
	defer stop()
	if err := resetPrefixCaches(ctx, &job, bases); err != nil {
		return nil, err
	}
	clock := transport.NewClock()
	client, err := newReplicaSender(job, bases, clock)
	if err != nil {
		return nil, failure.New(failure.Input, err) // an endpoint URL or setting the client cannot use
	}
	defer client.Close()

	reqs := job.Requests
	if reqs == nil {
		reqs = Requests(job.Endpoint, job.Entries)
	}
	tel := startTelemetry(ctx, job.Telemetry, bases, clock, warmups(&job)) // before the warm-up: counters must bracket the window
	runCtx, abort := context.WithCancel(ctx)
	defer abort()
	red := newReduction(&job, reqs, abort)
	red.replicas.URLs = replicaURLs(job.Endpoint.ReplicaURLs())
	job.Point.OnRecord = tel.observing(red.take)
	job.Point.OnWarmup = tel.warmupDone
	job.Point.AfterWarmup = tel.afterWarmup(runCtx)
	meter := startClientMeter()
	var res *engine.Result
	if len(job.Sessions) > 0 {
		res = engine.RunSessions(runCtx, job.Point, client, clock, conversation(job.Endpoint, job.Sessions, job.Point.Seed))
	} else {
		res = engine.Run(runCtx, job.Point, client, clock, reqs)
	}
	red.wait()
	meter.stop()
	releaseLoadMemory()
	out := &Outcome{Target: client.Target(), Interrupted: res.Interrupted,
		Counting: red.counting(), Summary: red.whole.Summary(), Components: red.parts.Summaries(),
		Replicas: red.replicas.Summaries(), Stages: red.stages.Summaries(),
		Goodput: job.Goodput, RecordsErr: red.writeErr, Series: red.series, Steady: red.steadyOut}
	out.Summary.Client = meter.verdict(&job, &out.Summary, res.Dropped)
	out.Shard = shardRun(job.Point, res.Started)
	out.StagesFrom = res.StagesFrom
	out.Telemetry = tel.finish(ctx, shardWindow(telemetryWindow(&out.Summary, job.CostPerHour, job.Currency), out.Shard))
	if out.Telemetry != nil && out.Shard == nil {
		out.Telemetry.checkTokens(&out.Summary, out.Counting) // a shard's sums are its share of the server's
	}
	if red.overBudget {
		out.Aborted = red.exceeded(&out.Summary)
	}
	return out, nil
}

// releaseLoadMemory hands the memory of a finished load back to the
// operating system before its summaries are computed. When thousands of
// streams end together, their connections, states and records are garbage
// the collector has not reclaimed yet, and the summaries' sorted copies of
// every chunk gap (megabytes) land on new pages beside it: at 10,000
// streams that work took the process's peak resident set 30 MB above the
// load's. A collection and a scavenge here cost milliseconds once per
// point; the load is over, so nothing measured waits for them.
func releaseLoadMemory() { debug.FreeOSMemory() }

// reduction consumes finished records on one goroutine, off the
// requests' own: it counts their tokens, feeds the summaries and hands
// them to Job.Records, then lets them go.
type reduction struct {
	ch      chan metrics.Record
	done    chan struct{}
	counter *tokenCounter
	out     RecordWriter

	whole     *metrics.Accumulator
	parts     ComponentAccumulators
	replicas  ReplicaAccumulators
	stages    StageAccumulators
	series    *metrics.Series
	fallbacks int
	writeErr  error
	// one is write's argument to the variadic Write: a record passed
	// alone through the interface is otherwise copied to a new slice
	// each time (320 bytes a record, all at once when thousands of
	// streams end together).
	one [1]metrics.Record

	// budget follows the error budget; abort stops the run once it is
	// exceeded (overBudget).
	budget     *budgetMeter
	abort      context.CancelFunc
	overBudget bool

	// steady holds an auto point's records for its summaries until it
	// ends (steady.go); they are written as they finish.
	steady    *steadyReduction
	steadyOut *SteadyOutcome
}

func newReduction(job *Job, reqs []engine.Request, abort context.CancelFunc) *reduction {
	r := &reduction{
		ch: make(chan metrics.Record, 4096), done: make(chan struct{}),
		counter: newTokenCounter(reqs, job.Count, job.Tokenizer), out: job.Records,
		whole: metrics.NewAccumulator(metrics.Options{Goodput: job.Goodput}),
		parts: ComponentAccumulators{Goodput: job.Goodput}, replicas: ReplicaAccumulators{Goodput: job.Goodput},
		stages: StageAccumulators{Load: job.Point.Load, Goodput: job.Goodput},
		abort:  abort,
	}
	r.whole.Reserve(job.Point.Stop.Requests, expectedChunks(job.Point, reqs))
	if job.Budget != nil {
		r.budget = newBudgetMeter(job.Budget, job.Point.Stop.Requests)
	}
	if len(job.Track) > 0 {
		r.series, _ = metrics.NewSeries(job.Track...) // Validate checked the names
	}
	if rule := job.Point.Stop.Steady; rule != nil {
		job.Point.Halt = engine.NewHalt()
		r.steady = newSteadyReduction(*rule, job.Endpoint.Stream, job.Point.Halt)
	}
	go r.loop()
	return r
}

// expectedChunks is how many content chunks a point stopped by a request
// count should stream: each request's max_tokens (engine.Request's
// ExpectedChunks, 0 unless streamed), the prompts cycled as the engine
// sends them; 0 for any other stop.
func expectedChunks(p engine.Point, reqs []engine.Request) int {
	if p.Stop.Requests <= 0 || len(reqs) == 0 {
		return 0
	}
	total := 0
	for i := range p.Stop.Requests {
		total += reqs[i%len(reqs)].ExpectedChunks
	}
	return total
}

// take is Point.OnRecord.
func (r *reduction) take(rec metrics.Record) { r.ch <- rec }

func (r *reduction) loop() {
	defer close(r.done)
	// One record, reused: its address goes where the compiler cannot see
	// that it is not kept (a metric's request function, through a func
	// value), so a record per iteration would be allocated, 320 bytes
	// each, all at once when thousands of streams end together. No
	// consumer keeps the pointer (Accumulator.Add, Series.Add and the
	// writers copy what they keep).
	rec := new(metrics.Record)
	for *rec = range r.ch {
		if r.counter.count(rec) {
			r.fallbacks++
		}
		rec.InputText = "" // counted: a turn's history need not be held on
		if !r.overBudget && r.budget.add(rec) {
			r.overBudget = true
			r.abort()
		}
		r.write(rec)
		if r.steady != nil {
			r.steady.add(*rec)
			continue
		}
		r.reduce(rec)
	}
	if r.steady != nil {
		var recs []metrics.Record
		recs, r.steadyOut = r.steady.finish()
		for i := range recs {
			r.reduce(&recs[i])
		}
	}
}

// write hands one finished record to Job.Records at once, an auto
// point's too: its warm-up cut is known only when the point ends, so its
// records are written unflagged and the cut is saved with the outcome
// (SteadyOutcome.Warmup: the first Warmup records written), for readers
// to apply; a killed auto point keeps what was written.
func (r *reduction) write(rec *metrics.Record) {
	if r.out == nil {
		return
	}
	r.one[0] = *rec
	if err := r.out.Write(r.one[:]...); err != nil && r.writeErr == nil {
		r.writeErr = err
	}
	r.one[0] = metrics.Record{} // no reference kept
}

// reduce adds one finished record to the point's summaries and series.
func (r *reduction) reduce(rec *metrics.Record) {
	r.whole.Add(rec)
	r.parts.Add(rec)
	r.replicas.Add(rec)
	r.stages.Add(rec)
	if r.series != nil && !rec.Warmup {
		r.series.Add(rec)
	}
}

// wait returns once the last record has been taken in; Run has returned,
// so no more arrive.
func (r *reduction) wait() {
	close(r.ch)
	<-r.done
}

// exceeded describes the exceeded budget from the point's summary.
func (r *reduction) exceeded(s *metrics.Summary) *BudgetExceeded {
	e := &BudgetExceeded{Failed: s.Failed, Finished: s.Failed + s.Completed, MaxRate: r.budget.budget.MaxRate}
	if len(s.Errors) > 0 {
		e.Common = s.Errors[0]
	}
	return e
}

func (r *reduction) counting() Counting {
	return Counting{Mode: r.counter.mode, Fallbacks: r.fallbacks}
}

// ComponentAccumulators summarize each dataset component of a point on its
// own as the records stream by; the zero value (with Goodput set) is ready.
type ComponentAccumulators struct {
	Goodput []metrics.SLO
	parts   map[string]*metrics.Accumulator
}

// Add takes one record; records of no component are left out.
func (c *ComponentAccumulators) Add(r *metrics.Record) {
	if r.Component == "" {
		return
	}
	if c.parts == nil {
		c.parts = map[string]*metrics.Accumulator{}
	}
	part := c.parts[r.Component]
	if part == nil {
		part = metrics.NewAccumulator(metrics.Options{Goodput: c.Goodput})
		c.parts[r.Component] = part
	}
	part.Add(r)
}

// Summaries are the components by name; nil unless the point mixed two
// or more.
func (c *ComponentAccumulators) Summaries() []ComponentSummary {
	if len(c.parts) < 2 {
		return nil
	}
	out := make([]ComponentSummary, 0, len(c.parts))
	for name, acc := range c.parts {
		out = append(out, ComponentSummary{Name: name, Summary: acc.Summary()})
	}
	slices.SortFunc(out, func(a, b ComponentSummary) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// resolve turns the endpoint into a base URL that answers, starting the
// simulator for sim://. stop releases whatever was started.
func resolve(e plan.Endpoint) (base string, stop func(), err error) {
	if e.API == transport.Triton {
		return resolveTriton(e)
	}
	if !e.IsSim() {
		base = BaseURL(e.URL)
		return base, func() {}, preflight(base)
	}
	cfg, err := SimConfig(e.URL)
	if err != nil {
		return "", nil, failure.New(failure.Input, err)
	}
	sharePrefixCache(e.URL, &cfg)
	srv, err := sim.Start(cfg)
	if err != nil {
		return "", nil, err
	}
	return srv.URL(), func() { _ = srv.Close() }, nil
}

func clientConfig(job Job, base string) transport.Config {
	e := job.Endpoint
	l := job.Point.Load
	conns := l.Concurrency
	switch {
	case l.Paced():
		conns = l.Users
	case !l.Closed(): // open loop or replay
		conns = engine.InFlightBound(l)
	}
	return transport.Config{
		URL: base, Path: e.Path, API: e.API, Stream: e.Stream, Model: e.Model, Backend: e.Backend, Headers: e.Headers, SessionHeader: e.SessionHeader,
		Timeout: e.Timeout, IdleTimeout: e.IdleTimeout, MaxConns: conns, Insecure: e.Insecure,
		MaxResponseSize: e.MaxResponseSize, MaxSSELineSize: e.MaxSSELineSize, SourceAddrs: e.SourceAddrs,
	}
}

// Requests renders the request body of every dataset entry once, so the
// hot path only sends bytes. Each body names its entry's model (see
// Endpoint.Models), so inputs.json and the raw export show which model
// every request asked for.
func Requests(e plan.Endpoint, entries []dataset.Entry) []engine.Request {
	spec := transport.BodySpec{API: e.API, Stream: e.Stream, Extra: e.Extra, Backend: e.Backend}
	model := modelPicker(e)
	reqs := make([]engine.Request, len(entries))
	for i, en := range entries {
		spec.Model = model(i)
		prompt := transport.Prompt{Text: en.Text, MaxTokens: en.MaxTokens, MinTokens: en.MinTokens, Passages: en.Passages}
		prompt.Images, prompt.Audio = mediaParts(en)
		reqs[i] = engine.Request{
			Body:      spec.Body(prompt),
			Text:      en.Text,
			Words:     en.Words,
			Component: en.Component,
			At:        en.At,
			Media:     mediaCounts(en),
		}
		if e.Stream {
			reqs[i].ExpectedChunks = en.MaxTokens
		}
	}
	return reqs
}
