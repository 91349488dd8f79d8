package main

import (
	"github.com/rs/zerolog/log"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime"
)

// profileCmd is `genai-perf profile` with the same flag names, plus the
// load shapes GenAI-Perf lacked (Poisson/gamma arrivals, a concurrency cap
// under a rate) and llmbench's robustness knobs.
type profileCmd struct {
	profileFlags
}

func (c *profileCmd) Run(e *env) error {
	job, run, err := c.plan()
	if err != nil {
		return err
	}
	c.warnInert()
	log.Info().Str("target", job.Endpoint.URL).Str("load", run.Stimulus.String()).
		Str("token_counting", string(job.Count)).Msg("profiling")
	exp := plannedExperiment(run.DirName(), job)
	rec := pointRecord(exp, &run, runtime.PointKey{Experiment: exp.Name, Params: loadParams(&c.profileFlags), Repeat: 1}, 0)
	out, err := measurePoint(e, run.DirName(), run.Dir(), job, &run, records.Meta{Point: run.DirName()}, rec, c.GeneratePlots)
	if err != nil {
		return err
	}
	if err := writePointArtifacts(e.stdout, run.Dir(), &run, out); err != nil {
		return runFailed("writing artifacts: %w", err)
	}
	return outcomeError(out)
}

// plannedExperiment is a GenAI-Perf point as the experiment plan its
// records save: the endpoint, load, stop condition, warmup, seed and
// goodput the job runs with.
func plannedExperiment(name string, job runtime.Job) *runtime.Experiment {
	p := job.Point
	return &runtime.Experiment{Name: name, Endpoint: job.Endpoint, Load: p.Load, Requests: p.Stop.Requests,
		Duration: p.Stop.Duration, Warmup: p.Warmup, Seed: p.Seed, Goodput: job.Goodput, Repeats: 1}
}

// pointRecord is the saved plan of a GenAI-Perf point, its prompts
// described as the console describes them.
func pointRecord(exp *runtime.Experiment, run *genaiperf.Run, key runtime.PointKey, index int) runtime.PointRecord {
	rec := runtime.RecordOf("", exp, key, index, records.StripCredentials)
	rec.Plan.Dataset = promptSource(run)
	return rec
}

// outcomeError turns a finished point into the exit status: an interrupt
// or a server that stopped accepting connections; server faults are data.
func outcomeError(out *runtime.Outcome) error {
	s := out.Summary
	if out.Interrupted {
		return errInterrupted
	}
	if s.Completed == 0 && s.Failed > 0 && s.Errors[0].Class == metrics.ErrConnect && len(s.Errors) == 1 {
		return runFailed("no request could connect to %s: %s", out.Target, s.Errors[0].Message)
	}
	return nil
}
