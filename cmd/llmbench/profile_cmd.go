package main

import (
	"github.com/rs/zerolog/log"

	"github.com/llmbench/llmbench/metrics"
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
	out, err := measurePoint(e, run.DirName(), run.Dir(), job, &run, records.Meta{Point: run.DirName()}, c.GeneratePlots)
	if err != nil {
		return err
	}
	if err := writePointArtifacts(e.stdout, run.Dir(), &run, out); err != nil {
		return runFailed("writing artifacts: %v", err)
	}
	return outcomeError(out)
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
