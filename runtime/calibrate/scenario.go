package calibrate

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
	"github.com/llmbench/llmbench/transport/slowdown"
)

// A scenario's calibration (`llmbench calibrate`): the scenario's
// experiments run as they are, 2N + 1 times, every run through the
// slowdown proxy so its own overhead is on both sides of every pair:
//
//   - "history": one run, measured first, at share 0;
//   - "same": N runs at share 0 (the unchanged server);
//   - "slowed": N runs with the proxy at the --slowdown shares,
//
// "same" and "slowed" interleaved (Order), so a spell of load on the
// machine falls on both. Every "same" and "slowed" run is then judged, as
// `llmbench run --baseline` would judge it, against the unchanged run
// measured last before it (the Rolling setup: as CI judges a change
// against the latest run of the main branch): N A/A pairs, whose failed
// gates are false alarms, and N pairs with a known slowdown, whose failed
// gates are detections.

// ScenarioOptions are how a scenario is calibrated.
type ScenarioOptions struct {
	// Pairs is N: A/A pairs and slowed pairs each.
	Pairs int
	// Slowdown is what the proxy does to the slowed runs.
	Slowdown slowdown.Shares
	// Store is the folder runs are kept in as they end ("" keeps them in
	// memory only).
	Store string
	// FailOnInconclusive counts an inconclusive gate as failed, as
	// `run --baseline --fail-on-inconclusive` does.
	FailOnInconclusive bool
	// Display shows each repeat's progress; Progress is told of each run
	// ended. Both may be nil.
	Display  Display
	Progress func(done, total int, r *Run)
}

// ScenarioSettings identify a scenario calibration's runs in its store:
// the same plan (every experiment as loaded, -D values applied) through
// the same slowdown.
type ScenarioSettings struct {
	Scenario string
	Plan     string // sha256 of the experiments' JSON
	Slowdown string
}

func (s ScenarioSettings) describe() string {
	return fmt.Sprintf("scenario %s with plan %.12s, slowdown %s", s.Scenario, s.Plan, s.Slowdown)
}

// Pool names of a scenario calibration.
const (
	poolHistory = "history"
	poolSame    = "same"
	poolSlowed  = "slowed"
)

// rolling is the setup every pair of a scenario calibration is judged in.
var rolling = Setup{Name: "last unchanged run vs 1 run", Base: 1, Cand: 1, Rolling: true}

// CalibrateScenario measures what the store lacks, then judges every
// pair and reports each baseline gate.
func CalibrateScenario(ctx context.Context, scen *runtime.Scenario, opt ScenarioOptions) (*Report, error) {
	if err := checkScenario(scen, opt); err != nil {
		return nil, err
	}
	sum, err := json.Marshal(scen.Experiments)
	if err != nil {
		return nil, err
	}
	settings := ScenarioSettings{Scenario: filepath.Base(scen.File), Plan: fmt.Sprintf("%x", sha256.Sum256(sum)), Slowdown: opt.Slowdown.String()}
	st, err := OpenStore(opt.Store, &settings, false, ScenarioSettings.describe)
	if err != nil {
		return nil, failure.New(failure.Input, err)
	}
	pools := scenarioPools(opt)
	specs := Order(pools, 1)
	effects := map[string]Effect{}
	for _, p := range pools {
		effects[p.Name] = p.Effect
	}
	measure := func(ctx context.Context, spec RunSpec) (*Run, error) {
		return measureScenario(ctx, scen, spec, effects[spec.Pool].Proxy, opt.Display)
	}
	if st.Missing(specs) > 0 {
		if err := preflightAll(scen); err != nil {
			return nil, err
		}
	}
	if err := MeasureMissing(ctx, st, specs, measure, opt.Progress); err != nil {
		if ctx.Err() != nil {
			return nil, failure.New(failure.Interrupted, err)
		}
		return nil, err
	}
	return judgeScenario(st, scen, pools, opt)
}

// checkScenario refuses what a calibration cannot measure, before
// anything is sent.
func checkScenario(scen *runtime.Scenario, opt ScenarioOptions) error {
	if opt.Pairs < 1 {
		return failure.Inputf("--pairs: got %d, want 1 or more", opt.Pairs)
	}
	if err := opt.Slowdown.Validate(); err != nil || opt.Slowdown == (slowdown.Shares{}) {
		return failure.Inputf("--slowdown: want at least one share > 0 (e.g. itl=10%%), got %s", opt.Slowdown)
	}
	gated := false
	for _, e := range scen.Experiments {
		if e.Endpoint.API == transport.Triton {
			return failure.Inputf("experiment %q: calibrate slows an OpenAI-compatible HTTP server through its proxy; a Triton endpoint has no such stream", e.Name)
		}
		for _, g := range e.Gates {
			gated = gated || g.Baseline
		}
	}
	if !gated {
		return failure.Inputf("%s has no baseline gate (such as \"itl.p50 <= baseline * 1.10\"): calibrate measures how often a scenario's own baseline gates fail by chance and catch a real slowdown, so there is nothing to calibrate", scen.File)
	}
	return nil
}

// scenarioPools are the pools of a scenario calibration.
func scenarioPools(opt ScenarioOptions) []Pool {
	return []Pool{
		{Name: poolHistory, Change: "the first baseline (proxy at share 0)", Runs: 1, History: true},
		{Name: poolSame, Change: "none (same server, proxy at share 0)", Runs: opt.Pairs},
		{Name: poolSlowed, Change: "slowdown proxy " + opt.Slowdown.String(), Effect: Effect{Proxy: opt.Slowdown}, Runs: opt.Pairs},
	}
}

// preflightAll checks every real endpoint of the scenario answers, so a
// server that is down is one error naming it (exit 3), not a proxy's
// failed requests.
func preflightAll(scen *runtime.Scenario) error {
	for _, e := range scen.Experiments {
		if e.Endpoint.IsSim() {
			continue
		}
		for _, u := range e.Endpoint.ReplicaURLs() {
			if err := runtime.Preflight(runtime.BaseURL(u)); err != nil {
				return fmt.Errorf("experiment %q: endpoint %s: %w", e.Name, plan.RedactURL(u), err)
			}
		}
	}
	return nil
}

// measureScenario runs every experiment once, each endpoint behind a
// slowdown proxy at shares, and keeps the records of every repeat.
func measureScenario(ctx context.Context, scen *runtime.Scenario, spec RunSpec, shares slowdown.Shares, display Display) (*Run, error) {
	col := &Collector{Display: display, Title: fmt.Sprintf("%s #%d: ", spec.Pool, spec.Index+1)}
	for i := range scen.Experiments {
		e := scen.Experiments[i]
		stop, err := route(&e, spec, shares)
		if err != nil {
			return nil, err
		}
		_, err = runtime.RunExperiment(ctx, &e, runtime.Options{}, col)
		stop()
		if err != nil {
			return nil, err
		}
	}
	if col.Interrupted {
		return nil, errors.New("interrupted")
	}
	// A run with failed requests is kept as it is: `run --baseline`
	// judges such a run as it is (its error budget stops a run that
	// fails too often), and the report counts them.
	return &Run{Drift: 1, Points: col.Points()}, nil
}

// route points e at a slowdown proxy in front of each of its endpoint's
// URLs (for sim://, in front of a simulator of the run's own, seeded by
// the run, as every CI run starts a fresh one). stop ends what it started.
func route(e *plan.Experiment, spec RunSpec, shares slowdown.Shares) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, s := range slices.Backward(stops) {
			s()
		}
	}
	urls := e.Endpoint.ReplicaURLs()
	routed := make([]string, len(urls))
	for i, u := range urls {
		upstream := runtime.BaseURL(u)
		if e.Endpoint.IsSim() {
			cfg, err := runtime.SimConfig(u)
			if err != nil {
				stop()
				return nil, failure.New(failure.Input, err)
			}
			cfg.Seed, cfg.DriftSeed = spec.Seed, spec.Seed
			srv, err := sim.Start(cfg)
			if err != nil {
				stop()
				return nil, err
			}
			stops, upstream = append(stops, func() { _ = srv.Close() }), srv.URL()+"/v1"
		}
		parsed, err := url.Parse(upstream)
		if err != nil {
			stop()
			return nil, failure.Inputf("experiment %q: url: %v", e.Name, err)
		}
		// The proxy stands for the server's root; the URL's path (/v1)
		// goes after the proxy's address as it went after the server's.
		p, err := slowdown.Start(parsed.Scheme+"://"+parsed.Host, shares)
		if err != nil {
			stop()
			return nil, err
		}
		stops = append(stops, func() { _ = p.Close() })
		routed[i] = p.URL() + strings.TrimSuffix(parsed.Path, "/")
	}
	e.Endpoint.URL = routed[0]
	if len(e.Endpoint.URLs) > 0 {
		e.Endpoint.URLs = routed
	}
	return stop, nil
}
