package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/llmbench/llmbench/runtime/engine"
	runplan "github.com/llmbench/llmbench/runtime/plan"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/transport"
	"github.com/llmbench/llmbench/transport/sim"
)

// measureAll measures the plan's runs one at a time (never two at once:
// they would slow each other down and share the noise they are meant to
// show). An interrupted calibration keeps the rounds it finished.
func measureAll(ctx context.Context, c config, p plan) (*store, error) {
	st := &store{Config: c, Sides: p.sides, PerSide: p.perSide, Machine: machine()}
	start := time.Now()
	defer func() { st.Elapsed = time.Since(start) }()
	specs := p.runs()
	for _, spec := range specs {
		if ctx.Err() != nil {
			st.dropPartialRound(p)
			return st, fmt.Errorf("interrupted after %d of %d runs; kept %d complete rounds", len(st.Runs), len(specs), st.Rounds)
		}
		r, err := measureRun(ctx, c, spec, p.sides[spec.Side])
		if err != nil {
			st.dropPartialRound(p)
			return st, fmt.Errorf("run %d (round %d, %s #%d): %w", spec.Index, spec.Round+1, p.sides[spec.Side].Name, spec.Rep+1, err)
		}
		st.Runs = append(st.Runs, r)
		if len(st.Runs)%p.runsPerRound() == 0 {
			st.Rounds++
		}
		fmt.Fprintf(os.Stderr, "run %d/%d %s (elapsed %s)\n", spec.Index+1, len(specs), r.line(p.sides[spec.Side]), time.Since(start).Round(time.Second))
	}
	return st, nil
}

// measureRun makes one run: a fresh simulator with its own seed (or the
// real target), prompts drawn with their own seed, and one point of one
// experiment run by the engine `llmbench run` uses.
func measureRun(ctx context.Context, c config, spec runSpec, s side) (storedRun, error) {
	seed := c.Seed + int64(spec.Index)
	url := c.Target
	if c.isSim() {
		srv, err := startSim(c, s, seed)
		if err != nil {
			return storedRun{}, err
		}
		defer srv.Close()
		url = srv.URL() + "/v1"
	}
	exp := &runplan.Experiment{
		Name: "calibrate",
		Endpoint: runplan.Endpoint{URL: url, API: transport.Chat, Stream: true, Model: c.Model,
			Timeout: 5 * time.Minute, Tokenizer: c.Tokenizer},
		Dataset: dataset.Synthetic{Input: dataset.Normal{Mu: float64(c.InputTokens), Sigma: float64(max(c.InputTokens/10, 1))},
			Output: dataset.Fixed{N: float64(c.OutputTokens)}, Entries: c.Requests + c.Warmup, Seed: uint64(seed)},
		Load:     runplan.Load{Concurrency: c.Concurrency},
		Requests: c.Requests,
		Warmup:   c.Warmup,
		Repeats:  1,
		Seed:     uint64(seed),
	}
	if err := runtime.Validate(exp); err != nil {
		return storedRun{}, err
	}
	obs := &collector{}
	t0 := time.Now()
	res, err := runtime.RunExperiment(ctx, exp, runtime.Options{}, obs)
	if err != nil {
		return storedRun{}, err
	}
	if len(res.Points) != 1 || obs.out == nil {
		return storedRun{}, fmt.Errorf("the run measured no point")
	}
	if obs.out.Interrupted {
		return storedRun{}, fmt.Errorf("interrupted")
	}
	return storedRun{Spec: spec, Seed: seed, Started: t0, Wall: time.Since(t0), Records: obs.records}, nil
}

// startSim starts the simulated server of one run; a slowed side scales
// both the single-sequence ITL and the per-sequence increment, so every
// decode step is slower by the same share whatever the batch.
func startSim(c config, s side, seed int64) (*sim.Server, error) {
	cfg := sim.DefaultConfig()
	cfg.Seed = seed
	cfg.Model = c.Model
	cfg.TTFT, cfg.PrefillPerToken, cfg.Jitter = c.Sim.TTFT, c.Sim.PrefillPerToken, c.Sim.Jitter
	scale := func(d time.Duration) time.Duration { return time.Duration(float64(d) * (1 + s.Slowdown)) }
	cfg.ITL, cfg.ITLPerSeq = scale(c.Sim.ITL), scale(c.Sim.ITLPerSeq)
	return sim.Start(cfg)
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
func (r storedRun) line(s side) string {
	d := r.data()
	sum := d.Summary
	ms := func(x *metrics.Distribution, f func(*metrics.Distribution) float64) string {
		if x == nil {
			return "-"
		}
		return fmt.Sprintf("%.2fms", f(x)/1e6)
	}
	p50 := func(x *metrics.Distribution) float64 { return x.P50 }
	p99 := func(x *metrics.Distribution) float64 { return x.P99 }
	return fmt.Sprintf("round %d %-11s #%d seed %d: %d ok %d failed, ttft p50 %s p99 %s, itl p50 %s p99 %s, %.0f tok/s, %.1fs",
		r.Spec.Round+1, s.Name, r.Spec.Rep+1, r.Seed, sum.Completed, sum.Failed,
		ms(sum.TimeToFirstToken, p50), ms(sum.TimeToFirstToken, p99),
		ms(sum.InterTokenLatency, p50), ms(sum.InterTokenLatency, p99), sum.OutputTokenThroughput, r.Wall.Seconds())
}
