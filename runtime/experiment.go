package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
)

// ErrNotSupported marks a declared feature whose execution has not been
// built yet; runs refuse it loudly instead of ignoring it.
var ErrNotSupported = errors.New("not supported yet")

// RunExperiment measures every point of e, evaluating its gates at each,
// and tells obs about each run and point so results are written as they
// come. A grid runs its points in order; until_saturation() and search()
// choose each next load from the points measured so far. It stops early
// when ctx is cancelled. The result's Capacity is analysed once all points
// have run.
func RunExperiment(ctx context.Context, e *plan.Experiment, opts Options, obs Observer) (*ExperimentResult, error) {
	if obs == nil {
		obs = quietObserver{}
	}
	r := &experimentRun{ctx: ctx, e: e, opts: opts, obs: obs, res: &ExperimentResult{Experiment: e}}
	var err error
	switch {
	case e.Sweep != nil && e.Sweep.Saturation != nil:
		err = r.saturation()
	case e.Sweep != nil && e.Sweep.Search != nil:
		err = r.search()
	default:
		err = r.grid()
	}
	r.res.Capacity = AnalyzeCapacity(r.res, &r.decided)
	return r.res, err
}

// Observer follows an experiment as it runs, on the experiment's goroutine:
// it is where a caller writes artifacts and shows progress, so the engine
// knows nothing of files or terminals.
type Observer interface {
	// RunStarting is called before each run of a point (each repeat) with
	// the work it will do (its requests, load and stop condition); the
	// returned RunWatch follows that run.
	RunStarting(key PointKey, job *Job) (RunWatch, error)
	// PointDone is called after each point, with every repeat.
	PointDone(p *PointResult) error
}

// RunWatch follows one run of a point.
type RunWatch interface {
	// Records takes the run's records as they finish; nil drops them.
	Records() RecordWriter
	// Progress is updated as measured requests finish; nil shows none.
	Progress() *engine.Progress
	// Finish is called with the run's outcome, or nil when the run could
	// not be carried out.
	Finish(out *Outcome) error
}

// quietObserver watches nothing: records are dropped, nothing is shown.
type quietObserver struct{}

func (quietObserver) RunStarting(PointKey, *Job) (RunWatch, error) { return quietObserver{}, nil }
func (quietObserver) PointDone(*PointResult) error                 { return nil }
func (quietObserver) Records() RecordWriter                        { return nil }
func (quietObserver) Progress() *engine.Progress                   { return nil }
func (quietObserver) Finish(*Outcome) error                        { return nil }

// experimentRun is one experiment in progress.
type experimentRun struct {
	ctx  context.Context
	e    *plan.Experiment
	opts Options
	obs  Observer
	res  *ExperimentResult
	// decided is what an adaptive sweep decided while running.
	decided Capacity
}

// measure runs one point, records it and tells the observer.
// A point stopped by the error budget is kept before its error stops the
// experiment.
func (r *experimentRun) measure(spec plan.PointSpec) error {
	pr, err := runPoint(r.ctx, r.e, r.opts, spec, r.obs)
	if len(pr.Repeats) > 0 {
		r.res.Points = append(r.res.Points, pr)
		if derr := r.obs.PointDone(&r.res.Points[len(r.res.Points)-1]); err == nil {
			err = derr
		}
	}
	if err != nil {
		return &PointError{Experiment: r.e.Name, Point: spec.Params.Label(), Err: err}
	}
	return nil
}

func (r *experimentRun) grid() error {
	points, err := r.e.Points()
	if err != nil {
		return err
	}
	for _, spec := range points {
		if r.ctx.Err() != nil {
			return nil
		}
		if err := r.measure(spec); err != nil {
			return err
		}
	}
	return nil
}

func runPoint(ctx context.Context, e *plan.Experiment, opts Options, spec plan.PointSpec, obs Observer) (PointResult, error) {
	job, err := newJob(e, opts, spec)
	if err != nil {
		return PointResult{}, err
	}
	var repeats []*Outcome
	for k := range max(e.Repeats, 1) {
		if len(repeats) > 0 && ctx.Err() != nil {
			break
		}
		key := PointKey{Experiment: e.Name, Params: spec.Params, Repeat: k + 1}
		out, err := runRepeat(ctx, job, key, obs)
		if err != nil {
			return PointResult{}, err
		}
		repeats = append(repeats, out)
		if out.Aborted != nil {
			return NewPointResult(e, opts.Against, spec.Params, repeats), out.Aborted
		}
	}
	return NewPointResult(e, opts.Against, spec.Params, repeats), nil
}

// NewPointResult is a point of e judged from the outcomes of its runs, in
// repeat order: the spread of each headline metric when repeated, and
// every gate that applies (on the mean across repeats), baseline gates
// against against (nil: none). A stored run read back is judged by this
// same function.
func NewPointResult(e *plan.Experiment, against *Baseline, params plan.Params, repeats []*Outcome) PointResult {
	pr := PointResult{Params: params, Outcome: repeats[0], Repeats: repeats}
	if len(repeats) > 1 {
		pr.RepeatStats = metrics.HeadlineRepeats(summaries(repeats))
	}
	pr.Gates = EvaluateGates(e, against, params, repeats...)
	return pr
}

// newJob is the work of one point: its prompts drawn (token-exact under
// the endpoint's tokenizer), the request bodies rendered, and the load,
// stop condition and counting it runs with, in this process's shard.
func newJob(e *plan.Experiment, opts Options, spec plan.PointSpec) (Job, error) {
	src := e.Dataset
	if spec.Dataset != nil {
		src = spec.Dataset
	}
	src = pointDataset(e, src, spec.Params)
	if err := CheckOpenFiles(spec.Load); err != nil {
		return Job{}, err
	}
	if err := CheckDatasetMemory(src, spec); err != nil {
		return Job{}, fmt.Errorf("dataset: %w", err)
	}
	var tok Tokenizer
	if ep := e.Endpoint; ep.Tokenizer != "" {
		t, err := LoadTokenizerRevision(ep.Tokenizer, ep.TokenizerRevision)
		if err != nil {
			return Job{}, failure.Inputf("tokenizer: %w", err)
		}
		tok, src = t, dataset.WithTokenizer(src, t) // prompts of exact token lengths
	}
	sessions, entries, err := buildWorkload(src, spec)
	if err != nil {
		return Job{}, failure.Inputf("dataset: %w", err)
	}
	if sessions != nil && !e.Endpoint.API.Conversational() {
		return Job{}, failure.Inputf("dataset %s holds conversations, which need api chat, responses or messages (a history of role-tagged messages), got api %s", src, e.Endpoint.API)
	}
	mode, err := ParseCountMode(e.Endpoint.TokenCount, tok != nil)
	if err != nil {
		return Job{}, failure.New(failure.Input, err)
	}
	if mode == ByUsage && !e.Endpoint.API.ReportsUsage() && (e.Endpoint.TokenCount == "" || e.Endpoint.TokenCount == "auto") {
		mode = ByChunks // auto without a tokenizer: what usage would fall back to on every request
	}
	ep := e.Endpoint
	ep.ModelSeed = e.Seed // random model choice follows the experiment's seed
	stop := spec.Stop
	if stop == (plan.Stop{}) {
		stop = plan.Stop{Requests: e.Requests, Duration: e.Duration, Sessions: e.Sessions, Steady: e.Steady}
	}
	return Job{Endpoint: ep, Entries: entries, Sessions: sessions, Requests: Requests(ep, entries), Count: mode, Tokenizer: tok, Goodput: e.Goodput, Budget: e.ErrorBudget, Track: e.BaselineTrack(),
		Telemetry: telemetryPlan(e), CostPerHour: e.CostPerHour, Currency: e.Currency,
		Point:      shardPoint(engine.Point{Load: spec.Load, Stop: stop, Warmup: e.Warmup, Seed: e.Seed, Grace: 5 * time.Second}, opts.Shard, sessions != nil),
		Rendezvous: opts.Rendezvous}, nil
}

// Resumer is an Observer that may already hold the outcome of a run (a
// checkpoint of an interrupted sweep): that run is not measured again.
type Resumer interface {
	Finished(key PointKey) (*Outcome, bool)
}

// runRepeat executes one run of a point, watched by the observer, unless
// the observer already has its outcome.
func runRepeat(ctx context.Context, job Job, key PointKey, obs Observer) (*Outcome, error) {
	if r, ok := obs.(Resumer); ok {
		if out, done := r.Finished(key); done {
			return out, nil
		}
	}
	w, err := obs.RunStarting(key, &job)
	if err != nil {
		return nil, err
	}
	job.Point.Progress, job.Records = w.Progress(), w.Records()
	if job.Rendezvous != nil {
		at, err := job.Rendezvous.Meet(ctx, key.String())
		if err != nil {
			_ = w.Finish(nil)
			return nil, failure.Runf("%s: the shards did not meet: %w", key, err)
		}
		job.Point.StartAt = at
	}
	out, err := Execute(ctx, job)
	if ferr := w.Finish(out); err == nil {
		err = ferr
	}
	return out, err
}

// measure is g's value in e's run out, as a comparison measures it
// (metrics.Gate.MeasureRun): from the summary g judges, its telemetry, or
// for cost per million tokens the experiment's price.
func measure(e *plan.Experiment, g metrics.Gate, out *Outcome) (float64, error) {
	if g.Needs() == metrics.NeedTelemetry && out.Telemetry == nil {
		return 0, fmt.Errorf("%s: %w (no telemetry was scraped: give telemetry=[...] or --server-metrics-urls)", g.Metric, metrics.ErrNotMeasured)
	}
	return g.MeasureRun(candidateRuns(g, []*Outcome{out}, e.CostPerHour)[0])
}

// gateSummary is what g is judged on: the whole point, or the one dataset
// component it names (an empty summary when that component sent nothing
// here, so the gate fails as unmeasured rather than passing).
func (o *Outcome) gateSummary(g metrics.Gate) *metrics.Summary {
	if g.Replica != nil {
		return o.replicaSummary(*g.Replica)
	}
	if g.Stage != "" {
		return o.stageSummary(g.Stage)
	}
	if g.Component == "" {
		return &o.Summary
	}
	for i := range o.Components {
		if o.Components[i].Name == g.Component {
			return &o.Components[i].Summary
		}
	}
	return &metrics.Summary{}
}

func summaries(outs []*Outcome) []*metrics.Summary {
	s := make([]*metrics.Summary, len(outs))
	for i, o := range outs {
		s[i] = &o.Summary
	}
	return s
}

// buildWorkload draws the dataset: the sessions of a conversation source
// or of a trace whose lines name sessions (with their turns flattened
// into entries), else the entries alone.
func buildWorkload(src dataset.Source, spec plan.PointSpec) ([]dataset.Session, []dataset.Entry, error) {
	if ss, ok := dataset.Sessioned(src); ok && spec.Input == nil && spec.Output == nil {
		sessions, err := ss.Sessions(0)
		return sessions, dataset.Flatten(sessions), err
	}
	entries, err := buildEntries(src, spec)
	if err != nil || (!dataset.HasSessions(entries) && !spec.Load.Paced()) {
		return nil, entries, err
	}
	return dataset.GroupSessions(entries), entries, nil // users() pace single prompts as one-turn sessions
}

// buildEntries draws the dataset, applying a token sweep's lengths.
func buildEntries(src dataset.Source, spec plan.PointSpec) ([]dataset.Entry, error) {
	if spec.Input != nil || spec.Output != nil {
		var err error
		if src, err = withLengths(src, spec); err != nil {
			return nil, err
		}
	}
	return src.Build(0)
}

// withLengths is a synthetic source (with its pictures and clips, if it
// has any) with a token sweep's lengths.
func withLengths(src dataset.Source, spec plan.PointSpec) (dataset.Source, error) {
	if m, ok := src.(dataset.Media); ok {
		text, err := withLengths(m.Text, spec)
		m.Text = text
		return m, err
	}
	syn, ok := src.(dataset.Synthetic)
	if !ok {
		return nil, fmt.Errorf("input_tokens/output_tokens sweeps need a synthetic() dataset, got %s", src)
	}
	if spec.Input != nil {
		syn.Input = spec.Input
	}
	if spec.Output != nil {
		syn.Output = spec.Output
	}
	return syn, nil
}

// EvaluateGates checks every gate that applies at a point. With repeats
// an absolute gate is judged on the mean of its metric across them ("one
// run is a data point, three are a number"); a baseline gate is compared
// with the baseline's same point, with the statistics of `llmbench
// compare`. A gate whose metric was not measured fails: a CI gate must
// never pass by default.
func EvaluateGates(e *plan.Experiment, against *Baseline, params plan.Params, outs ...*Outcome) []GateResult {
	var results []GateResult
	var baselineGates []int
	for _, g := range e.Gates {
		if !g.Applies(params) {
			continue
		}
		r := GateResult{Gate: g, Baseline: against.value(g, params)}
		if g.Baseline {
			baselineGates = append(baselineGates, len(results))
			results = append(results, r)
			continue
		}
		var sum float64
		for _, out := range outs {
			v, err := measure(e, g, out)
			if err != nil {
				r.Err = err
				break
			}
			sum += v
		}
		if r.Err == nil {
			r.Measured = sum / float64(len(outs))
			r.Passed = g.Check(r.Measured, 0)
		}
		results = append(results, r)
	}
	if len(baselineGates) > 0 {
		against.judgeGates(e.CostPerHour, params, outs, results, baselineGates)
	}
	return results
}
