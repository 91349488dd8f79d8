package plan

import (
	"fmt"
	"slices"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/failure"
)

// Experiment is one experiment of a scenario (SPEC §6 experiment()): the
// plan as plain values, built by builtins (or GenAI-Perf's flags), run by
// runtime, stored with every point's records as its JSON (never holding
// a credential: header values and body extras are not stored, URLs are
// redacted), hashed by the checkpoint and shown in report.html. What
// wires one run of it (a loaded baseline, a shard) is runtime.Options.
type Experiment struct {
	Name     string         `json:"name"`
	Endpoint Endpoint       `json:"endpoint"`
	Dataset  dataset.Source `json:"-"` // stored as its description (MarshalJSON)
	// Load is the base load; a sweep varies one or more of its parameters.
	Load Load `json:"load"`
	// Requests, Duration or (for conversations) Sessions ends each
	// point's measurement.
	Requests int           `json:"requests,omitempty"`
	Duration time.Duration `json:"duration,omitempty"`
	Sessions int           `json:"sessions,omitempty"`
	// Steady, when set, makes Requests or Duration the cap of an auto
	// point (requests="auto", duration="auto") that stops once the rule
	// is met.
	Steady *metrics.SteadyRule `json:"steady_state,omitempty"`
	// Warmup requests precede each point's measurement, excluded from it.
	Warmup int `json:"warmup,omitempty"`
	// AB, when set, makes each point an interleaved A/B run of the
	// endpoint (the candidate) against AB.Baseline (runtime/ab).
	AB *AB `json:"ab,omitempty"`
	// Sweep is nil for a single point.
	Sweep *Sweep `json:"sweep,omitempty"`
	// Planned, when set, are the experiment's points as its caller
	// compiled them, run in order instead of a sweep's (GenAI-Perf's
	// analyze derives each point from its flags); Sweep then only
	// describes them.
	Planned []PointSpec    `json:"-"`
	Gates   []metrics.Gate `json:"-"` // stored as written (MarshalJSON)
	Goodput []metrics.SLO  `json:"-"` // stored as metric and value (MarshalJSON)
	// Repeats runs each point this many times (at least 1).
	Repeats int `json:"repeats"`
	// Telemetry lists Prometheus /metrics URLs to scrape during each point
	// (the endpoint's own /metrics is tried too).
	Telemetry []string `json:"-"`
	// TelemetryInterval is the scrape period; 0 means 0.33 s, and a
	// negative one (--telemetry-interval off) scrapes nothing at all.
	TelemetryInterval time.Duration `json:"-"`
	// ServerMetricsOff leaves the endpoint's own /metrics unscraped
	// (--no-server-metrics, endpoint(server_metrics = False)); URLs in
	// Telemetry are still scraped.
	ServerMetricsOff bool `json:"-"`
	// CostPerHour prices the deployment, in Currency ("EUR" when empty).
	CostPerHour float64 `json:"cost_per_hour,omitempty"`
	Currency    string  `json:"currency,omitempty"`
	// Baseline names a stored result set to compare with, as the
	// scenario or --baseline gave it.
	Baseline string            `json:"baseline,omitempty"`
	Tags     map[string]string `json:"tags,omitempty"`
	// Seed makes datasets and arrival schedules reproducible.
	Seed uint64 `json:"seed"`
	// PointSeeds gives each point prompts of its own, drawn with the
	// dataset's seeds mixed with the point's parameters (PointSeed);
	// false sends the same prompts at every point (a scenario's
	// same_prompts=True, and GenAI-Perf's single seed in profile and
	// analyze).
	PointSeeds bool `json:"point_seeds,omitempty"`
	// ErrorBudget, when set, abandons the run once a point's failures
	// exceed it; nil lets every failure be data.
	ErrorBudget *ErrorBudget `json:"error_budget,omitempty"`
}

// Converses reports whether the experiment's dataset is made of
// multi-turn sessions, so its closed loop counts sessions, not requests.
func (e *Experiment) Converses() bool {
	_, ok := dataset.Sessioned(e.Dataset)
	return ok
}

// BaselineTrack are the metrics the experiment's baseline gates compare
// on (Job.Track): what a run's Series must hold.
func (e *Experiment) BaselineTrack() []*metrics.Metric {
	var track []*metrics.Metric
	for _, g := range e.Gates {
		if g.Baseline && g.Metric.HasSeries() {
			track = append(track, g.Metric)
		}
	}
	return track
}

// PointSpec is one point of an experiment before it runs.
type PointSpec struct {
	Params Params
	Load   Load
	// Input and Output override the dataset's lengths for token sweeps.
	Input, Output dataset.Dist
	// Dataset and Stop, when set, replace the experiment's for this point:
	// a GenAI-Perf analyze point is profile with one flag changed, which
	// may change its prompts and its default request count.
	Dataset dataset.Source
	Stop    Stop
}

// Points expands an experiment into its points: its Planned points when
// it has them, else one without a sweep, the grid of every parameter's
// values with one. Saturation and search sweeps
// decide their points while running and are refused here.
func (e *Experiment) Points() ([]PointSpec, error) {
	if len(e.Planned) > 0 {
		return e.Planned, nil
	}
	base := e.Base()
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
				next = append(next, pt.With(p.Name, v))
			}
		}
		points = next
	}
	return points, nil
}

// With returns a copy of the point with one parameter set: the same
// point a grid sweep reaches for that value, whoever chose it.
func (p PointSpec) With(name string, v float64) PointSpec {
	q := p
	q.Params = p.Params.With(name, v)
	switch name {
	case metrics.ParamConcurrency:
		q.Load.Concurrency, q.Load.Rate = int(v), 0
	case metrics.ParamRate:
		q.Load.Rate, q.Load.Concurrency = v, 0
		if q.Load.Arrival == "" {
			q.Load.Arrival = Poisson
		}
	case metrics.ParamUsers:
		q.Load.Users = int(v)
	case metrics.ParamInputTokens:
		q.Input = dataset.Fixed{N: v}
	case metrics.ParamOutputTokens:
		q.Output = dataset.Fixed{N: v}
	}
	return q
}

// Adaptive reports whether the experiment's points are chosen from the
// results of earlier ones (until_saturation, search).
func (e *Experiment) Adaptive() bool {
	return e.Sweep != nil && (e.Sweep.Saturation != nil || e.Sweep.Search != nil)
}

// Base is the experiment's load as a point, before any sweep.
func (e *Experiment) Base() PointSpec {
	return PointSpec{Params: ParamsOf(e.Load), Load: e.Load}
}

// ParamsOf is a load as a point's parameters: its concurrency, rate or
// replay speed.
func ParamsOf(l Load) Params {
	switch {
	case l.Replay():
		return Params{metrics.ParamReplaySpeed: l.ReplaySpeed}
	case l.Paced():
		return Params{metrics.ParamUsers: float64(l.Users)}
	case l.Closed():
		return Params{metrics.ParamConcurrency: float64(l.Concurrency)}
	}
	return Params{metrics.ParamRate: l.Rate}
}

// PlanError is a problem with one parameter of an experiment's plan: the
// Starlark layer places it at that argument of the experiment() call.
type PlanError struct {
	Experiment string
	// Param is experiment()'s parameter at fault: gates, telemetry, sweep.
	Param string
	Err   error
}

func (e *PlanError) Error() string {
	return fmt.Sprintf("experiment %q: %s: %v", e.Experiment, e.Param, e.Err)
}
func (e *PlanError) Unwrap() error { return e.Err }

// FailureClass makes a plan that cannot run invalid input (exit 2).
func (e *PlanError) FailureClass() failure.Class { return failure.Input }

// Validate lists, before anything is sent, what the plan could only do
// wrong, apart from running it (as k6 validates an executor's config):
// gates whose metric this configuration never measures (a gate that
// cannot be measured fails, so it would fail every run), headers the
// transport must not send, and sweeps that cannot produce their points.
// Every error is a *PlanError naming the parameter at fault. What the
// machine can hold (open files, the dataset's memory) is runtime's to
// check, not the plan's.
func (e *Experiment) Validate() []error {
	var errs []error
	fail := func(param string, err error) {
		errs = append(errs, &PlanError{Experiment: e.Name, Param: param, Err: err})
	}
	for _, g := range e.Gates {
		if g.Baseline && !g.Metric.HasSeries() && e.Repeats < 2 {
			fail("gates", fmt.Errorf("gate %q: %s has no per-request values, so it is compared with a baseline on repeats: set repeats=2 or more", g.Source, g.Metric))
		} else if need := e.unmet(g.Needs()); need != "" {
			fail("gates", fmt.Errorf("gate %q can never be measured here: %s needs %s", g.Source, g.Metric, need))
		}
	}
	for _, h := range e.Endpoint.Headers {
		if err := CheckHeader(h.Name, h.Value); err != nil {
			fail("headers", err)
		}
	}
	if err := e.validateSweep(); err != nil {
		fail("sweep", err)
	}
	if e.Endpoint.ResetPrefixCache && e.Endpoint.IsTriton() {
		fail("endpoint", fmt.Errorf(`reset_prefix_cache with api="triton": the reset is an HTTP POST to the server's root, and this endpoint speaks gRPC; reset the cache with an HTTP endpoint of the same server`))
	}
	return errs
}

// Loads are the loads the experiment's points will run at, as far as they
// are known before running (an adaptive sweep's are chosen while it runs,
// and each is checked then).
func (e *Experiment) Loads() []Load {
	points, err := e.Points()
	if err != nil || e.Adaptive() {
		return []Load{e.Load}
	}
	loads := make([]Load, len(points))
	for i, p := range points {
		loads[i] = p.Load
	}
	return loads
}

// unmet returns need when this experiment does not provide it, else "".
func (e *Experiment) unmet(need metrics.Need) metrics.Need {
	met := true
	switch need {
	case metrics.NeedStreaming:
		met = e.Endpoint.Stream
	case metrics.NeedGoodput:
		met = len(e.Goodput) > 0
	case metrics.NeedOpenLoop:
		met = !e.Load.Closed() || e.sweeps(metrics.ParamRate)
	case metrics.NeedTelemetry:
		// Given URLs, or the endpoint's own /metrics found at run time
		// (sim:// serves DCGM and vLLM metrics); a real endpoint without
		// them fails the gate as not measured, naming what was missing.
		met = true
	case metrics.NeedCost:
		met = e.CostPerHour > 0
	}
	if met {
		return metrics.NeedNothing
	}
	return need
}

// sweeps reports whether a grid or adaptive sweep varies param.
func (e *Experiment) sweeps(param string) bool {
	switch s := e.Sweep; {
	case s == nil:
		return false
	case s.Saturation != nil:
		return s.Saturation.Over == param
	case s.Search != nil:
		return s.Search.Over == param
	}
	return slices.ContainsFunc(e.Sweep.Params, func(p SweepParam) bool { return p.Name == param })
}

// validateSweep checks that the sweep can produce its points.
func (e *Experiment) validateSweep() error {
	switch {
	case e.Sweep != nil && e.Sweep.Saturation != nil:
		return e.Sweep.Saturation.Driver().Validate()
	case e.Sweep != nil && e.Sweep.Search != nil:
		return e.Sweep.Search.Driver().Validate()
	}
	_, err := e.Points()
	return err
}
