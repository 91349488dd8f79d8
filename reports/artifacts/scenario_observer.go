package artifacts

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// ScenarioObserver writes a scenario experiment's artifacts as it runs:
// each run of a point streams its records into the point's folder
// (OUT/<experiment>/<label>[/repeatK]/, see pointSink) under a live
// display, each finished point prints its tables and writes its
// GenAI-Perf files, and each run that ended normally is checkpointed.
type ScenarioObserver struct {
	Session
	Scenario string
	Out      string
	Exp      *plan.Experiment
	// Checkpoint is the run's checkpoint; nil checkpoints nothing.
	Checkpoint *RunCheckpoint
	// Side, when set, is the side of an interleaved A/B point this
	// observer writes ("a" or "b"): its folder is OUT/<experiment>/<label>/<side>/,
	// each round a run of it (round K in repeatK/).
	Side string
	// done counts the points finished: the next point's place in run order.
	done int
}

// Finished is runtime.Resumer: with --resume, a run the checkpoint holds
// is not measured again; its records, inputs and plots stay as written,
// and its GenAI-Perf JSON, CSV and table are written again from the
// checkpointed numbers like every point's.
func (o *ScenarioObserver) Finished(key runtime.PointKey) (*runtime.Outcome, bool) {
	out, ok := o.Checkpoint.finished(o.Exp, key, o.Side)
	if ok {
		what := key.String()
		if o.Side != "" {
			what = o.Exp.Name + " / " + o.runTitle(key.Params.Label(), key.Repeat, 0)
		}
		fmt.Fprintf(o.Stdout, "%s found in checkpoint - skipping\n", what)
	}
	return out, ok
}

func (o *ScenarioObserver) RunStarting(key runtime.PointKey, job *runtime.Job) (runtime.RunWatch, error) {
	run := scenarioRun(o.Exp, key.Params, &runtime.Outcome{}, o.Sink.Version)
	id := records.Meta{Scenario: o.Scenario, Experiment: o.Exp.Name, Point: key.Params.Label(), Repeat: key.Repeat, Shard: job.Point.Shard.Index}
	rec := runtime.RecordOf(o.Scenario, o.Exp, key, o.done)
	sink, err := openPointSink(repeatDir(o.pointDir(key.Params), key.Repeat), &run, id, rec, job, o.Sink)
	if err != nil {
		return nil, failure.Runf("%w", err)
	}
	progress := o.Display.Start(o.Exp.Name+"/"+key.Params.Label(), job.Point.MeasuredRequests(), job.Point.Warmup)
	return &scenarioWatch{o: o, key: key, sink: sink, progress: progress}, nil
}

func (o *ScenarioObserver) PointDone(p *runtime.PointResult) error {
	o.Display.End()
	o.done++
	for k, out := range p.Repeats {
		fmt.Fprintf(o.Stdout, "\n== %s / %s ==\n", o.Exp.Name, o.runTitle(p.Params.Label(), k+1, len(p.Repeats)))
		run := scenarioRun(o.Exp, p.Params, out, o.Sink.Version)
		if err := writePoint(o.Stdout, repeatDir(o.pointDir(p.Params), k+1), &run, out); err != nil {
			return failure.Runf("writing artifacts: %w", err)
		}
	}
	return nil
}

// pointDir is the folder of the point with these parameters (of this
// observer's side of it, for an A/B point).
func (o *ScenarioObserver) pointDir(p plan.Params) string {
	return filepath.Join(pointDir(o.Out, o.Exp.Name, p), o.Side)
}

// scenarioWatch follows one run of a point into its files.
type scenarioWatch struct {
	o        *ScenarioObserver
	key      runtime.PointKey
	sink     *pointSink
	progress *engine.Progress
}

func (w *scenarioWatch) Records() runtime.RecordWriter { return w.sink }
func (w *scenarioWatch) Progress() *engine.Progress    { return w.progress }

func (w *scenarioWatch) Finish(out *runtime.Outcome) error {
	if out == nil {
		w.sink.Abandon()
		return nil
	}
	o := w.o
	o.Display.End() // before Finish's own messages, so they do not interleave with the bar
	run := scenarioRun(o.Exp, w.key.Params, out, o.Sink.Version)
	title := o.Exp.Name + " / " + o.runTitle(w.key.Params.Label(), w.key.Repeat, o.Exp.Repeats)
	if err := w.sink.Finish(o.Stderr, &run, out, title); err != nil {
		return failure.Runf("%w", err)
	}
	if err := o.Checkpoint.save(o.Exp, w.key, o.Side, w.sink.Dir(), out); err != nil {
		return failure.Runf("%w", err)
	}
	return nil
}

// runTitle names run k (from 1) of n of a point: a repeat, or a round
// of an A/B side.
func (o *ScenarioObserver) runTitle(label string, k, n int) string {
	if o.Side == "" {
		return repeatTitle(label, k, n)
	}
	if o.Exp.AB != nil {
		n = o.Exp.AB.Rounds
	}
	return fmt.Sprintf("%s, side %s, round %d of %d", label, o.Side, k, n)
}

// repeatTitle names repeat k (from 1) of n of a point.
func repeatTitle(label string, k, n int) string {
	if n <= 1 {
		return label
	}
	return fmt.Sprintf("%s (repeat %d of %d)", label, k, n)
}

// scenarioRun is the GenAI-Perf description of a scenario point: a view of
// its plan, written into the point's GenAI-Perf files.
func scenarioRun(exp *plan.Experiment, params plan.Params, out *runtime.Outcome, version string) genaiperf.Run {
	ep := exp.Endpoint
	r := genaiperf.DefaultRun(ep.ModelNames()...)
	r.ModelSelection = ep.ModelSelection
	r.Subcommand = "run"
	// Descriptions reach artifacts, so credentials in the URL or path do not.
	r.EndpointType, r.Streaming, r.URL = string(ep.API), ep.Stream, plan.RedactURL(ep.URL)
	if ep.IsTriton() { // Triton's gRPC API: its own service kind, inputs.json and raw export
		r.ServiceKind, r.Backend = "triton", ep.Backend
	}
	r.Endpoint = plan.RedactURL(strings.TrimLeft(ep.Path, " /"))
	r.Stimulus = stimulusOf(exp, params)
	r.RequestCount, r.MeasurementInterval, r.WarmupRequestCount = exp.Requests, int(exp.Duration.Milliseconds()), exp.Warmup
	for _, slo := range exp.Goodput {
		r.Goodput = append(r.Goodput, genaiperf.Goodput{Name: string(slo.Metric), Value: slo.Value})
	}
	for _, f := range ep.Extra {
		r.ExtraInputs = append(r.ExtraInputs, genaiperf.Field{Name: f.Key, Value: f.Value})
	}
	r.RandomSeed = int(exp.Seed)
	if arrival := exp.Load.Arrival; arrival != "" {
		r.RequestDistribution = string(arrival)
	} else if r.Stimulus.Mode() == "request_rate" {
		r.RequestDistribution = string(plan.Poisson) // a rate sweep's default
	}
	r.TokenCounting = out.Counting.String()
	r.Tokenizer = ep.Tokenizer
	r.Version = "llmbench " + version
	return r
}

// stimulusOf is a point's load as GenAI-Perf's files describe it: a
// closed loop over conversations is its --session-concurrency, users()
// llmbench's own.
func stimulusOf(exp *plan.Experiment, params plan.Params) genaiperf.Stimulus {
	if u, ok := params[metrics.ParamUsers]; ok {
		return genaiperf.Stimulus{Users: int(u), UserRate: exp.Load.Rate}
	}
	c, r := int(params[metrics.ParamConcurrency]), params[metrics.ParamRate]
	switch {
	case exp.Converses() && c > 0:
		return genaiperf.Stimulus{SessionConcurrency: c}
	case exp.Converses() && r > 0:
		return genaiperf.Stimulus{SessionRate: r}
	}
	return genaiperf.Stimulus{Concurrency: c, RequestRate: params[metrics.ParamRate], Staged: exp.Load.Staged()}
}
