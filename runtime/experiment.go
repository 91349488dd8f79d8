package runtime

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
)

// ErrNotSupported marks a declared feature whose execution has not been
// built yet; runs refuse it loudly instead of ignoring it.
var ErrNotSupported = errors.New("not supported yet")

// PointSpec is one point of an experiment before it runs.
type PointSpec struct {
	// Label names the point in paths and tables: "concurrency16",
	// "request_rate10.0", "concurrency8-input_tokens512".
	Label  string
	Params map[string]float64
	Load   Load
	// Input and Output override the dataset's lengths for token sweeps.
	Input, Output dataset.Dist
}

// Points expands an experiment into its points: one without a sweep, the
// grid of every parameter's values with one. Saturation and search sweeps
// decide their points while running and are refused here for now.
func (e *Experiment) Points() ([]PointSpec, error) {
	base := e.base()
	if e.Sweep == nil {
		return []PointSpec{base}, nil
	}
	if e.Adaptive() {
		return nil, fmt.Errorf("experiment %q: the points of until_saturation() and search() are chosen while running", e.Name)
	}
	points := []PointSpec{base}
	for _, p := range e.Sweep.Params {
		var next []PointSpec
		for _, pt := range points {
			for _, v := range p.Values {
				next = append(next, pt.with(p.Name, v))
			}
		}
		points = next
	}
	for i := range points {
		points[i].Label = label(points[i].Params)
	}
	return points, nil
}

// with returns a copy of the point with one parameter set.
func (p PointSpec) with(name string, v float64) PointSpec {
	q := p
	q.Params = make(map[string]float64, len(p.Params)+1)
	for k, x := range p.Params {
		q.Params[k] = x
	}
	switch name {
	case ParamConcurrency:
		q.Load.Concurrency, q.Load.Rate = int(v), 0
		delete(q.Params, ParamRate)
	case ParamRate:
		q.Load.Rate, q.Load.Concurrency = v, 0
		delete(q.Params, ParamConcurrency)
		if q.Load.Arrival == "" {
			q.Load.Arrival = Poisson
		}
	case ParamInputTokens:
		q.Input = dataset.Fixed{N: v}
	case ParamOutputTokens:
		q.Output = dataset.Fixed{N: v}
	}
	q.Params[name] = v
	return q
}

// label renders params GenAI-Perf style, load first.
func label(params map[string]float64) string {
	var parts []string
	if c, ok := params[ParamConcurrency]; ok {
		parts = append(parts, "concurrency"+strconv.Itoa(int(c)))
	}
	if r, ok := params[ParamRate]; ok {
		parts = append(parts, "request_rate"+pyFloat(r))
	}
	if v, ok := params[ParamReplaySpeed]; ok {
		parts = append(parts, "replay_speed"+pyFloat(v))
	}
	for _, name := range []string{ParamInputTokens, ParamOutputTokens} {
		if v, ok := params[name]; ok {
			parts = append(parts, name+strconv.Itoa(int(v)))
		}
	}
	return strings.Join(parts, "-")
}

// pyFloat prints a float as Python's repr does for plain values: 10.0, 2.5.
func pyFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// Adaptive reports whether the experiment's points are chosen from the
// results of earlier ones (until_saturation, search).
func (e *Experiment) Adaptive() bool {
	return e.Sweep != nil && (e.Sweep.Saturation != nil || e.Sweep.Search != nil)
}

// base is the experiment's load as a point, before any sweep.
func (e *Experiment) base() PointSpec {
	base := PointSpec{Params: map[string]float64{}, Load: e.Load}
	switch {
	case e.Load.Replay():
		base.Params[ParamReplaySpeed] = e.Load.ReplaySpeed
	case e.Load.Closed():
		base.Params[ParamConcurrency] = float64(e.Load.Concurrency)
	default:
		base.Params[ParamRate] = e.Load.Rate
	}
	base.Label = label(base.Params)
	return base
}

// Validate refuses what can be declared but not yet run.
func (e *Experiment) Validate() error {
	var errs []error
	for _, g := range e.Gates {
		if g.Baseline {
			errs = append(errs, fmt.Errorf("experiment %q: gate %q: baseline comparison is %w", e.Name, g.Source, ErrNotSupported))
		}
	}
	if len(e.Telemetry) > 0 {
		errs = append(errs, fmt.Errorf("experiment %q: telemetry is %w", e.Name, ErrNotSupported))
	}
	if err := e.validateSweep(); err != nil {
		errs = append(errs, fmt.Errorf("experiment %q: %w", e.Name, err))
	}
	return errors.Join(errs...)
}

// validateSweep checks that the sweep can produce its points.
func (e *Experiment) validateSweep() error {
	switch {
	case e.Sweep != nil && e.Sweep.Saturation != nil:
		return e.Sweep.Saturation.driver().Validate()
	case e.Sweep != nil && e.Sweep.Search != nil:
		return e.Sweep.Search.driver().Validate()
	}
	_, err := e.Points()
	return err
}

// RunExperiment measures every point of e, evaluating its gates at each,
// and calls done after each point so results can be written as they come.
// A grid runs its points in order; until_saturation() and search() choose
// each next load from the points measured so far. It stops early when ctx
// is cancelled.
func RunExperiment(ctx context.Context, e *Experiment, hooks Hooks) (*ExperimentResult, error) {
	if hooks.Done == nil {
		hooks.Done = func(PointResult) error { return nil }
	}
	r := &experimentRun{ctx: ctx, e: e, hooks: hooks, res: &ExperimentResult{Experiment: e}}
	var err error
	switch {
	case e.Sweep != nil && e.Sweep.Saturation != nil:
		err = r.saturation()
	case e.Sweep != nil && e.Sweep.Search != nil:
		err = r.search()
	default:
		err = r.grid()
	}
	return r.res, err
}

// Hooks let a caller follow an experiment as it runs.
type Hooks struct {
	// Done is called after each point, so results are written as they come.
	Done func(PointResult) error
	// Progress, when set, is asked for a live progress value as each run
	// of a point (each repeat) starts.
	Progress func(label string, requests int) *Progress
	// Records, when set, opens what takes the records of one run of a
	// point (repeat counts from 1) before it starts, given the requests it
	// will send; finish is called with the run's outcome, or with nil when
	// the run could not be carried out.
	Records func(label string, params map[string]float64, repeat int, reqs []Request) (w RecordWriter, finish func(*Outcome) error, err error)
}

// experimentRun is one experiment in progress.
type experimentRun struct {
	ctx   context.Context
	e     *Experiment
	hooks Hooks
	res   *ExperimentResult
}

// measure runs one point, records it and hands it to done.
func (r *experimentRun) measure(spec PointSpec) error {
	pr, err := runPoint(r.ctx, r.e, spec, r.hooks)
	if err != nil {
		return fmt.Errorf("experiment %q, point %s: %w", r.e.Name, spec.Label, err)
	}
	r.res.Points = append(r.res.Points, pr)
	return r.hooks.Done(pr)
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
	r.res.Saturation = analyzeSaturation(r.e, r.res.Points)
	return nil
}

func runPoint(ctx context.Context, e *Experiment, spec PointSpec, hooks Hooks) (PointResult, error) {
	src := e.Dataset
	var tok Tokenizer
	if e.Endpoint.Tokenizer != "" {
		t, err := LoadTokenizer(e.Endpoint.Tokenizer)
		if err != nil {
			return PointResult{}, err
		}
		tok, src = t, dataset.WithTokenizer(src, t) // prompts of exact token lengths
	}
	entries, err := buildEntries(src, spec)
	if err != nil {
		return PointResult{}, err
	}
	mode, err := ParseCountMode(e.Endpoint.TokenCount, tok != nil)
	if err != nil {
		return PointResult{}, err
	}
	job := Job{Endpoint: e.Endpoint, Entries: entries, Requests: Requests(e.Endpoint, entries), Count: mode, Tokenizer: tok, Goodput: e.Goodput, Point: Point{
		Load: spec.Load, Stop: Stop{Requests: e.Requests, Duration: e.Duration},
		Warmup: e.Warmup, Seed: e.Seed, Grace: 5 * time.Second,
	}}
	pr := PointResult{Label: spec.Label, Params: spec.Params}
	for k := range max(e.Repeats, 1) {
		if len(pr.Repeats) > 0 && ctx.Err() != nil {
			break
		}
		out, err := runRepeat(ctx, job, spec, k+1, hooks)
		if err != nil {
			return PointResult{}, err
		}
		pr.Repeats = append(pr.Repeats, out)
	}
	pr.Outcome = pr.Repeats[0]
	if len(pr.Repeats) > 1 {
		pr.RepeatStats = metrics.HeadlineRepeats(summaries(pr.Repeats))
	}
	pr.Gates = EvaluateGates(e, spec.Params, pr.Repeats...)
	return pr, nil
}

// runRepeat executes one run of a point with the caller's progress
// display and records file.
func runRepeat(ctx context.Context, job Job, spec PointSpec, repeat int, hooks Hooks) (*Outcome, error) {
	if hooks.Progress != nil {
		job.Point.Progress = hooks.Progress(spec.Label, job.Point.Stop.Requests)
	}
	finish := func(*Outcome) error { return nil }
	if hooks.Records != nil {
		w, f, err := hooks.Records(spec.Label, spec.Params, repeat, job.Requests)
		if err != nil {
			return nil, err
		}
		job.Records, finish = w, f
	}
	out, err := Execute(ctx, job)
	if ferr := finish(out); err == nil {
		err = ferr
	}
	return out, err
}

func summaries(outs []*Outcome) []*metrics.Summary {
	s := make([]*metrics.Summary, len(outs))
	for i, o := range outs {
		s[i] = &o.Summary
	}
	return s
}

// buildEntries draws the dataset, applying a token sweep's lengths.
func buildEntries(src dataset.Source, spec PointSpec) ([]dataset.Entry, error) {
	if spec.Input != nil || spec.Output != nil {
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
		src = syn
	}
	return src.Build(0)
}

// EvaluateGates checks every gate that applies at a point. With repeats
// a gate is judged on the mean of its metric across them ("one run is a
// data point, three are a number"). A gate whose metric was not measured
// fails: a CI gate must never pass by default.
func EvaluateGates(e *Experiment, params map[string]float64, outs ...*Outcome) []GateResult {
	var results []GateResult
	for _, g := range e.Gates {
		if !g.Applies(params) {
			continue
		}
		r := GateResult{Gate: g}
		var sum float64
		for _, out := range outs {
			v, err := g.Measure(&out.Summary)
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
	return results
}
