package main

import (
	"fmt"

	"github.com/rs/zerolog/log"

	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime"
)

// gpPoint is one GenAI-Perf point as its artifacts name and describe it.
type gpPoint struct {
	// label names the point on the console and in the records
	// ("concurrency8"; analyze: GenAI-Perf's objective).
	label string
	run   genaiperf.Run
	// config is the point's checkpoint identity (analyze only).
	config []byte
}

// gpObserver writes the GenAI-Perf artifacts of `profile` and `analyze`
// points as RunExperiment measures them: each point in its own GenAI-Perf
// folder (<artifact-dir>/<model>-openai-chat-concurrency8), its records
// streamed there, its table printed; with a checkpoint (analyze), finished
// points are checkpointed and skipped on resume.
type gpObserver struct {
	e     *env
	exp   *runtime.Experiment
	plots bool
	// points are the experiment's points by label of their Params.
	points map[string]*gpPoint
	// experiment names the records' experiment ("" for profile).
	experiment string
	// header prints "== label ==" before each point (analyze).
	header bool
	cp     *checkpointing
	live   liveProgress
	done   int
	// resumed are the points taken from the checkpoint, left as written.
	resumed map[string]bool
	// failure is the first point no request could reach: the sweep stops.
	failure error
}

func (o *gpObserver) point(p runtime.Params) *gpPoint { return o.points[p.Label()] }

// Finished is runtime.Resumer: a point the checkpoint holds is not
// measured again.
func (o *gpObserver) Finished(key runtime.PointKey) (*runtime.Outcome, bool) {
	pt := o.point(key.Params)
	if o.cp == nil || !o.cp.resuming {
		return nil, false
	}
	done, ok := o.cp.find(pt.config)
	if !ok {
		return nil, false
	}
	fmt.Fprintf(o.e.stdout, "%s:%s found in checkpoint - skipping profiling...\n", o.cp.configName(done.ID), pt.label)
	o.resumed[pt.label] = true
	o.cp.restored(pt.label, done.ID)
	return done.Result().Outcome, true
}

func (o *gpObserver) RunStarting(key runtime.PointKey, reqs []runtime.Request) (runtime.RunWatch, error) {
	pt := o.point(key.Params)
	if o.header {
		fmt.Fprintf(o.e.stdout, "\n== %s ==\n", pt.label)
	}
	log.Info().Str("target", o.exp.Endpoint.URL).Str("point", pt.label).Str("token_counting", o.exp.Endpoint.TokenCount).Msg("profiling")
	rec := pointRecord(o.exp, &pt.run, key, o.done)
	id := records.Meta{Experiment: o.experiment, Point: pt.label}
	sink, err := openPointSink(pt.run.Dir(), &pt.run, id, rec, reqs, o.plots)
	if err != nil {
		return nil, runFailed("%w", err)
	}
	progress := o.live.start(o.e, pt.label, o.stopOf(key).Requests, o.exp.Warmup)
	return &gpWatch{o: o, pt: pt, sink: sink, progress: progress}, nil
}

// stopOf is the stop condition of the point with key.
func (o *gpObserver) stopOf(key runtime.PointKey) runtime.Stop {
	for _, p := range o.exp.Planned {
		if p.Params.Label() == key.Params.Label() && p.Stop != (runtime.Stop{}) {
			return p.Stop
		}
	}
	return runtime.Stop{Requests: o.exp.Requests, Duration: o.exp.Duration}
}

// PointDone writes the point's GenAI-Perf JSON and CSV and prints its
// table, then checkpoints it when it ended normally. A point no request
// could connect to stops the sweep (exit 3); server faults are data.
func (o *gpObserver) PointDone(p *runtime.PointResult) error {
	o.live.end()
	o.done++
	pt := o.point(p.Params)
	if o.resumed[pt.label] {
		return nil
	}
	out := p.Outcome
	pt.run.TokenCounting = out.Counting.String()
	if err := writePointArtifacts(o.e.stdout, pt.run.Dir(), &pt.run, out); err != nil {
		return runFailed("writing artifacts: %w", err)
	}
	if o.failure = unreachable(out); o.failure != nil {
		return o.failure
	}
	if o.cp != nil && !out.Interrupted {
		return o.cp.save(pt, p)
	}
	return nil
}

// gpWatch follows one run of a GenAI-Perf point into its folder.
type gpWatch struct {
	o        *gpObserver
	pt       *gpPoint
	sink     *pointSink
	progress *runtime.Progress
}

func (w *gpWatch) Records() runtime.RecordWriter { return w.sink }
func (w *gpWatch) Progress() *runtime.Progress   { return w.progress }

func (w *gpWatch) Finish(out *runtime.Outcome) error {
	if out == nil {
		w.sink.abandon()
		return nil
	}
	w.pt.run.TokenCounting = out.Counting.String()
	if err := w.sink.finish(w.o.e.stderr, &w.pt.run, out, w.pt.label); err != nil {
		return runFailed("writing records: %w", err)
	}
	return nil
}
