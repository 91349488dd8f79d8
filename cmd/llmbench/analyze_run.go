package main

import (
	"fmt"
	"os"

	"github.com/rs/zerolog/log"

	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime"
)

// sweepRun carries an analyze sweep while it runs: the checkpoint it
// resumes from and extends, and every point measured or restored so far.
type sweepRun struct {
	cmd  *analyzeCmd
	env  *env
	plan *analyzePlan
	cp   *runtime.Checkpoint
	res  *runtime.ExperimentResult
	// ids and finished run parallel to res.Points: the checkpoint ID of
	// each point, and whether it ended normally (an interrupted point or
	// one whose server vanished is shown but never checkpointed).
	ids      []int
	finished []bool
}

// openCheckpoint loads the checkpoint when resuming. A fresh sweep starts
// an empty one, replacing any old file as its first point finishes, so a
// checkpoint always describes one sweep's points; the old file is named in
// a warning because --resume may have been forgotten.
func (c *analyzeCmd) openCheckpoint() (*runtime.Checkpoint, error) {
	path := c.checkpointPath()
	if !c.resuming() {
		if _, err := os.Stat(path); err == nil {
			log.Warn().Str("checkpoint", path).Msg("starting afresh; its finished points will be replaced (pass --resume to skip them)")
		}
		return &runtime.Checkpoint{Version: runtime.CheckpointVersion}, nil
	}
	cp, found, err := runtime.LoadCheckpoint(path)
	if err != nil {
		return nil, invalid("%w", err)
	}
	if !found {
		log.Info().Str("checkpoint", path).Msg("no checkpoint yet: measuring every point")
	}
	return cp, nil
}

// run measures the points in order, skipping those the checkpoint holds
// when resuming. It stops at an interrupt (exit 130) or when the target
// cannot be reached (exit 3); what finished stays checkpointed.
func (s *sweepRun) run() error {
	for i := range s.plan.points {
		if s.env.ctx.Err() != nil {
			return errInterrupted
		}
		pt := &s.plan.points[i]
		if done, ok := s.cp.Find(pt.config); ok && s.cmd.resuming() {
			fmt.Fprintf(s.env.stdout, "%s:%s found in checkpoint - skipping profiling...\n", s.cmd.configName(done.ID), pt.label)
			pr := done.Result()
			pr.Params = pt.params
			s.add(pr, done.ID, true)
			continue
		}
		if err := s.measure(pt); err != nil {
			return err
		}
	}
	return nil
}

// measure runs one point as profile would, writes its artifacts and, when
// it ended normally, checkpoints it.
func (s *sweepRun) measure(pt *analyzePoint) error {
	job, run, err := pt.flags.plan()
	if err != nil {
		return err
	}
	s.describe(&run, pt)
	fmt.Fprintf(s.env.stdout, "\n== %s ==\n", pt.label)
	log.Info().Str("target", job.Endpoint.URL).Str("point", pt.label).Msg("profiling")
	dir := run.Dir()
	exp := *s.plan.exp
	exp.Load, exp.Requests, exp.Duration = job.Point.Load, job.Point.Stop.Requests, job.Point.Stop.Duration
	exp.Warmup, exp.Seed = job.Point.Warmup, job.Point.Seed
	rec := pointRecord(&exp, &run, runtime.PointKey{Experiment: exp.Name, Params: pt.params, Repeat: 1}, len(s.res.Points))
	out, err := measurePoint(s.env, pt.label, dir, job, &run, records.Meta{Experiment: s.plan.exp.Name, Point: pt.label}, rec,
		s.cmd.GeneratePlots)
	if err != nil {
		return err
	}
	if err := writePointArtifacts(s.env.stdout, dir, &run, out); err != nil {
		return runFailed("writing artifacts: %w", err)
	}
	pr := runtime.PointResult{Params: pt.params, Outcome: slim(out)}
	pr.Repeats = []*runtime.Outcome{pr.Outcome}
	id := s.cp.NextID()
	failure := outcomeError(out)
	s.add(pr, id, failure == nil)
	if failure != nil {
		return failure
	}
	s.cp.Add(runtime.CheckpointOf(pt.config, id, pt.label, dir, &pr))
	if err := s.cp.Save(s.cmd.checkpointPath()); err != nil {
		return runFailed("writing checkpoint: %w", err)
	}
	return nil
}

func (s *sweepRun) add(pr runtime.PointResult, id int, finished bool) {
	s.res.Points = append(s.res.Points, pr)
	s.ids = append(s.ids, id)
	s.finished = append(s.finished, finished)
}

// describe marks a point's GenAI-Perf description as an analyze point.
func (s *sweepRun) describe(run *genaiperf.Run, pt *analyzePoint) {
	run.Subcommand = "analyze"
	run.Objective = pt.label
	run.Sweep = &s.plan.spec.echo
	run.CheckpointDir, run.EnableCheckpointing = s.cmd.CheckpointDir, s.cmd.EnableCheckpointing
}

// slim keeps what the sweep's reports need of a measured point and drops
// its records and request bodies, already written to its artifacts, so a
// long sweep's memory does not grow with every point.
func slim(out *runtime.Outcome) *runtime.Outcome {
	return &runtime.Outcome{
		Target:      out.Target,
		Interrupted: out.Interrupted,
		Counting:    out.Counting,
		Summary:     out.Summary,
		Goodput:     out.Goodput,
	}
}
