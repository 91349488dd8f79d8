package runtime

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

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
	base := PointSpec{Params: map[string]float64{}, Load: e.Load}
	switch {
	case e.Load.Replay():
		base.Params[ParamReplaySpeed] = e.Load.ReplaySpeed
	case e.Load.Closed():
		base.Params[ParamConcurrency] = float64(e.Load.Concurrency)
	default:
		base.Params[ParamRate] = e.Load.Rate
	}
	if e.Sweep == nil {
		base.Label = label(base.Params)
		return []PointSpec{base}, nil
	}
	if e.Sweep.Saturation != nil || e.Sweep.Search != nil {
		return nil, fmt.Errorf("experiment %q: until_saturation() and search() sweeps are %w", e.Name, ErrNotSupported)
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

// Validate refuses what can be declared but not yet run.
func (e *Experiment) Validate() error {
	var errs []error
	for _, g := range e.Gates {
		if g.Baseline {
			errs = append(errs, fmt.Errorf("experiment %q: gate %q: baseline comparison is %w", e.Name, g.Source, ErrNotSupported))
		}
	}
	if e.Repeats > 1 {
		errs = append(errs, fmt.Errorf("experiment %q: repeats=%d is %w (use repeats=1)", e.Name, e.Repeats, ErrNotSupported))
	}
	if len(e.Telemetry) > 0 {
		errs = append(errs, fmt.Errorf("experiment %q: telemetry is %w", e.Name, ErrNotSupported))
	}
	if _, err := e.Points(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// RunExperiment measures every point of e in order, evaluating its gates
// at each, and calls done after each point so results can be written as
// they come. It stops early when ctx is cancelled.
func RunExperiment(ctx context.Context, e *Experiment, done func(PointResult) error) (*ExperimentResult, error) {
	points, err := e.Points()
	if err != nil {
		return nil, err
	}
	res := &ExperimentResult{Experiment: e}
	for _, spec := range points {
		if ctx.Err() != nil {
			break
		}
		pr, err := runPoint(ctx, e, spec)
		if err != nil {
			return res, fmt.Errorf("experiment %q, point %s: %w", e.Name, spec.Label, err)
		}
		res.Points = append(res.Points, pr)
		if err := done(pr); err != nil {
			return res, err
		}
	}
	return res, nil
}

func runPoint(ctx context.Context, e *Experiment, spec PointSpec) (PointResult, error) {
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
	job := Job{Endpoint: e.Endpoint, Entries: entries, Count: mode, Tokenizer: tok, Goodput: e.Goodput, Point: Point{
		Load: spec.Load, Stop: Stop{Requests: e.Requests, Duration: e.Duration},
		Warmup: e.Warmup, Seed: e.Seed, Grace: 5 * time.Second,
	}}
	out, err := Execute(ctx, job)
	if err != nil {
		return PointResult{}, err
	}
	pr := PointResult{Label: spec.Label, Params: spec.Params, Outcome: out}
	pr.Gates = EvaluateGates(e, spec.Params, out)
	return pr, nil
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

// EvaluateGates checks every gate that applies at a point. A gate whose
// metric was not measured fails: a CI gate must never pass by default.
func EvaluateGates(e *Experiment, params map[string]float64, out *Outcome) []GateResult {
	var results []GateResult
	for _, g := range e.Gates {
		if !g.Applies(params) {
			continue
		}
		r := GateResult{Gate: g}
		r.Measured, r.Err = g.Measure(&out.Summary)
		r.Passed = r.Err == nil && g.Check(r.Measured, 0)
		results = append(results, r)
	}
	return results
}
