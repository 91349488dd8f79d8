package main

import (
	"fmt"
	"path/filepath"

	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime"
)

// runObserver writes a scenario experiment's artifacts as it runs: each run
// of a point streams its records into the point's folder (see pointSink)
// with a live progress display, and each finished point prints its tables
// and writes its GenAI-Perf files.
type runObserver struct {
	e        *env
	scenario string
	out      string
	exp      *runtime.Experiment
	plots    bool
	live     liveProgress
	// done counts the points finished: the next point's place in run order.
	done int
	// cp is the run's checkpoint; nil checkpoints nothing.
	cp *runCheckpoint
}

// Finished is runtime.Resumer: with --resume, a run the checkpoint holds
// is not measured again (its folder keeps the files it wrote then).
func (o *runObserver) Finished(key runtime.PointKey) (*runtime.Outcome, bool) {
	config, err := identity(o.scenario, o.exp, key)
	if err != nil {
		return nil, false
	}
	out, ok := o.cp.finished(config)
	if ok {
		fmt.Fprintf(o.e.stdout, "%s found in checkpoint - skipping\n", key)
	}
	return out, ok
}

// pointDir is where a point writes: OUT/<experiment>/<label>/.
func (o *runObserver) pointDir(p runtime.Params) string {
	return filepath.Join(o.out, o.exp.Name, p.Label())
}

// repeatDir is where repeat k (from 1) of a point writes: the point's
// folder for the first, repeat2/, repeat3/... for the others.
func repeatDir(dir string, k int) string {
	if k <= 1 {
		return dir
	}
	return filepath.Join(dir, fmt.Sprintf("repeat%d", k))
}

func (o *runObserver) RunStarting(key runtime.PointKey, reqs []runtime.Request) (runtime.RunWatch, error) {
	run := describePoint(o.exp, key.Params, &runtime.Outcome{})
	id := records.Meta{Scenario: o.scenario, Experiment: o.exp.Name, Point: key.Params.Label(), Repeat: key.Repeat}
	rec := runtime.RecordOf(o.scenario, o.exp, key, o.done, records.StripCredentials)
	sink, err := openPointSink(repeatDir(o.pointDir(key.Params), key.Repeat), &run, id, rec, reqs, o.plots)
	if err != nil {
		return nil, runFailed("%w", err)
	}
	progress := o.live.start(o.e, o.exp.Name+"/"+key.Params.Label(), o.exp.Requests, o.exp.Warmup)
	return &runWatch{o: o, key: key, sink: sink, progress: progress}, nil
}

func (o *runObserver) PointDone(p *runtime.PointResult) error {
	o.live.end()
	o.done++
	for k, out := range p.Repeats {
		fmt.Fprintf(o.e.stdout, "\n== %s / %s ==\n", o.exp.Name, repeatTitle(p.Params.Label(), k+1, len(p.Repeats)))
		run := describePoint(o.exp, p.Params, out)
		if err := writePointArtifacts(o.e.stdout, repeatDir(o.pointDir(p.Params), k+1), &run, out); err != nil {
			return runFailed("writing artifacts: %w", err)
		}
	}
	return nil
}

// runWatch follows one run of a point into its files.
type runWatch struct {
	o        *runObserver
	key      runtime.PointKey
	sink     *pointSink
	progress *runtime.Progress
}

func (w *runWatch) Records() runtime.RecordWriter { return w.sink }
func (w *runWatch) Progress() *runtime.Progress   { return w.progress }

func (w *runWatch) Finish(out *runtime.Outcome) error {
	if out == nil {
		w.sink.abandon()
		return nil
	}
	run := describePoint(w.o.exp, w.key.Params, out)
	if err := w.sink.finish(w.o.e.stderr, &run, out, w.o.exp.Name+" / "+repeatTitle(w.key.Params.Label(), w.key.Repeat, w.o.exp.Repeats)); err != nil {
		return runFailed("%w", err)
	}
	config, err := identity(w.o.scenario, w.o.exp, w.key)
	if err == nil {
		err = w.o.cp.save(config, w.key, w.sink.dir, out)
	}
	if err != nil {
		return runFailed("%w", err)
	}
	return nil
}
