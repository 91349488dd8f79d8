package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/engine"
	runplan "github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
	"github.com/llmbench/llmbench/transport/slowdown"
)

// measureMissing measures, one at a time, every run of the plan the store
// lacks (never two at once: they would slow each other down and share the
// noise they are meant to show). Each run is stored as it ends, so an
// interruption loses only the run in flight.
func measureMissing(ctx context.Context, c config, st *store) error {
	pools := map[string]pool{}
	for _, p := range c.pools() {
		pools[p.Name] = p
	}
	specs := order(c.pools(), c.Seed)
	var todo []runSpec
	for _, s := range specs {
		if !st.has(s) {
			todo = append(todo, s)
		}
	}
	fmt.Fprintf(os.Stderr, "calibrate: %s\ncalibrate: %d runs planned, %d in the store, %d to measure\n",
		st.Measure.describe(), len(specs), len(specs)-len(todo), len(todo))
	start := time.Now()
	for i, spec := range todo {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted after %d of %d runs (the store keeps them)", i, len(todo))
		}
		r, err := measureRun(ctx, st.Measure, spec, pools[spec.Pool].Effect)
		if err != nil {
			return fmt.Errorf("run %s #%d: %w", spec.Pool, spec.Index+1, err)
		}
		if err := st.add(r); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "run %d/%d %s (elapsed %s)\n", i+1, len(todo), r.line(), time.Since(start).Round(time.Second))
	}
	return nil
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
	obs := &collector{}
	r := &storedRun{Spec: spec, Drift: drift, Started: time.Now(), Load1: loadAverage()}
	res, err := runtime.RunExperiment(ctx, exp, runtime.Options{}, obs)
	if err != nil {
		return nil, err
	}
	if len(res.Points) != 1 || obs.out == nil {
		return nil, fmt.Errorf("the run measured no point")
	}
	if obs.out.Interrupted {
		return nil, fmt.Errorf("interrupted")
	}
	r.Wall, r.Records = time.Since(r.Started), obs.records
	for _, rec := range r.Records {
		if rec.Err != nil {
			// A failed request has no latency: a run with failures would
			// be judged on fewer requests than its pool's others.
			return nil, fmt.Errorf("a request failed (%s, HTTP %d): %s", rec.Err.Class, rec.Err.Status, rec.Err.Message)
		}
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
		p, err := slowdown.Start(u.Scheme+"://"+u.Host, slowdown.Shares{ITL: e.ProxyITL})
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
	cfg.TTFT, cfg.PrefillPerToken = scale(m.Sim.TTFT, e.ttft()), scale(m.Sim.PrefillPerToken, e.ttft())
	cfg.ITL, cfg.ITLPerSeq = scale(m.Sim.ITL, e.itl()), scale(m.Sim.ITLPerSeq, e.itl())
	return cfg
}

// collector is the runtime.Observer of one run: it keeps the run's records
// (token-counted, in completion order, as `run` writes them to
// records.parquet) and its outcome.
type collector struct {
	mu      sync.Mutex
	records []metrics.Record
	out     *runtime.Outcome
}

func (c *collector) RunStarting(runtime.PointKey, *runtime.Job) (runtime.RunWatch, error) {
	return c, nil
}
func (c *collector) PointDone(*runtime.PointResult) error { return nil }
func (c *collector) Records() runtime.RecordWriter        { return c }
func (c *collector) Progress() *engine.Progress           { return nil }
func (c *collector) Finish(out *runtime.Outcome) error    { c.out = out; return nil }

// Write is runtime.RecordWriter.
func (c *collector) Write(recs ...metrics.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.records = append(c.records, recs...)
	return nil
}

// line is the progress line of a finished run.
func (r *storedRun) line() string {
	sum := r.data().Summary
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
