package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/calibrate"
	"github.com/llmbench/llmbench/runtime/dataset"
	runplan "github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
	"github.com/llmbench/llmbench/transport/slowdown"
)

// measureMissing measures, one at a time, every run of the plan the store
// lacks (calibrate.MeasureMissing: each run stored as it ends, so an
// interruption loses only the run in flight).
func measureMissing(ctx context.Context, c config, st *store) error {
	pools := map[string]pool{}
	for _, p := range c.pools() {
		pools[p.Name] = p
	}
	specs := calibrate.Order(c.pools(), c.Seed)
	todo := st.Missing(specs)
	fmt.Fprintf(os.Stderr, "calibrate: %s\ncalibrate: %d runs planned, %d in the store, %d to measure\n",
		c.measure.describe(), len(specs), len(specs)-todo, todo)
	start := time.Now()
	measure := func(ctx context.Context, spec runSpec) (*storedRun, error) {
		return measureRun(ctx, c.measure, spec, pools[spec.Pool].Effect)
	}
	return calibrate.MeasureMissing(ctx, st, specs, measure, func(done, total int, r *storedRun) {
		fmt.Fprintf(os.Stderr, "run %d/%d %s (elapsed %s)\n", done, total, line(r), time.Since(start).Round(time.Second))
	})
}

// measureRun makes one run: a fresh simulator with its own seeds (or the
// real target behind the slowdown proxy), prompts drawn with the run's own
// seed, and one point of one experiment run by the engine `llmbench run`
// uses.
func measureRun(ctx context.Context, m measure, spec runSpec, e effect) (*storedRun, error) {
	target, drift, stop, err := startTarget(m, spec, e)
	if err != nil {
		return nil, err
	}
	defer stop()
	exp := &runplan.Experiment{
		Name: "calibrate",
		Endpoint: runplan.Endpoint{URL: target, API: transport.Chat, Stream: true, Model: m.Model,
			Timeout: 5 * time.Minute, Tokenizer: m.Tokenizer},
		Dataset: dataset.Synthetic{Input: dataset.Normal{Mu: float64(m.InputTokens), Sigma: float64(max(m.InputTokens/10, 1))},
			Output: dataset.Fixed{N: float64(m.OutputTokens)}, Entries: m.Requests + m.Warmup, Seed: uint64(spec.Seed)},
		Load:     runplan.Load{Concurrency: m.Concurrency},
		Requests: m.Requests,
		Warmup:   m.Warmup,
		Repeats:  1,
		Seed:     uint64(spec.Seed),
	}
	if err := runtime.Validate(exp); err != nil {
		return nil, err
	}
	obs := &calibrate.Collector{}
	res, err := runtime.RunExperiment(ctx, exp, runtime.Options{}, obs)
	if err != nil {
		return nil, err
	}
	if len(res.Points) != 1 || len(obs.Points()) != 1 {
		return nil, fmt.Errorf("the run measured no point")
	}
	if obs.Interrupted {
		return nil, fmt.Errorf("interrupted")
	}
	r := &storedRun{Drift: drift, Points: obs.Points()}
	if f := r.Failed(); f != nil {
		// A failed request has no latency: a run with failures would be
		// judged on fewer requests than its pool's others.
		return nil, fmt.Errorf("a request failed (%s, HTTP %d): %s", f.Err.Class, f.Err.Status, f.Err.Message)
	}
	return r, nil
}

// startTarget starts what one run talks to: a simulator of its own, or the
// slowdown proxy in front of the real server. It gives the base URL, the
// run's drift factor and how to stop it.
func startTarget(m measure, spec runSpec, e effect) (base string, drift float64, stop func(), err error) {
	if m.Target != "sim" {
		// Every run goes through the proxy, at share 0 when unchanged, so
		// its own overhead is on both sides of every pair.
		// The proxy stands for the server's root; the target's path (/v1)
		// goes after the proxy's address as it went after the server's.
		u, err := url.Parse(m.Target)
		if err != nil {
			return "", 0, nil, fmt.Errorf("-target %s: %w", m.Target, err)
		}
		p, err := slowdown.Start(u.Scheme+"://"+u.Host, e.Proxy)
		if err != nil {
			return "", 0, nil, err
		}
		return p.URL() + u.Path, 1, func() { p.Close() }, nil
	}
	srv, err := sim.Start(simConfig(m, spec, e))
	if err != nil {
		return "", 0, nil, err
	}
	return srv.URL() + "/v1", srv.Speed(), func() { srv.Close() }, nil
}

// simConfig is the simulator of one run: the baseline's knobs, the pool's
// effect on them, and the run's own seeds, its drift drawn from the run's
// seed (so a run measured again drifts alike). Scaling ITL and ITLPerSeq
// together makes every decode step slower by the same share whatever the
// batch; TTFT and PrefillPerToken together, every prefill.
func simConfig(m measure, spec runSpec, e effect) sim.Config {
	cfg := sim.DefaultConfig()
	cfg.Seed, cfg.Model, cfg.Jitter = spec.Seed, m.Model, m.Sim.Jitter
	cfg.Drift, cfg.DriftSeed = m.Sim.Drift, spec.Seed
	scale := func(d time.Duration, f float64) time.Duration { return time.Duration(float64(d) * f) }
	cfg.TTFT, cfg.PrefillPerToken = scale(m.Sim.TTFT, e.TTFTFactor()), scale(m.Sim.PrefillPerToken, e.TTFTFactor())
	cfg.ITL, cfg.ITLPerSeq = scale(m.Sim.ITL, e.ITLFactor()), scale(m.Sim.ITLPerSeq, e.ITLFactor())
	return cfg
}

// line is the progress line of a finished run.
func line(r *storedRun) string {
	sum := data(r).Summary
	ms := func(x *metrics.Distribution, f func(*metrics.Distribution) float64) string {
		if x == nil {
			return "-"
		}
		return fmt.Sprintf("%.2fms", f(x)/1e6)
	}
	p50 := func(x *metrics.Distribution) float64 { return x.P50 }
	p99 := func(x *metrics.Distribution) float64 { return x.P99 }
	return fmt.Sprintf("%s #%d seed %d drift %.3f: %d ok %d failed, ttft p99 %s, itl p50 %s p99 %s, %.0f tok/s, %.1fs, load %.2f",
		r.Spec.Pool, r.Spec.Index+1, r.Spec.Seed, r.Drift, sum.Completed, sum.Failed,
		ms(sum.TimeToFirstToken, p99), ms(sum.InterTokenLatency, p50), ms(sum.InterTokenLatency, p99),
		sum.OutputTokenThroughput, r.Wall.Seconds(), r.Load1)
}
