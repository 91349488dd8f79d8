package artifacts

import (
	"fmt"
	"strings"

	"github.com/rs/zerolog/log"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// GenAIPerfPoint is one `profile` or `analyze` point as its artifacts name
// and describe it.
type GenAIPerfPoint struct {
	// Label names the point on the console and in its records (profile:
	// the GenAI-Perf folder name; analyze: GenAI-Perf's objective,
	// "concurrency8").
	Label string
	Run   genaiperf.Run
	// Config is the point's checkpoint identity (analyze only).
	Config []byte
}

// GenAIPerfObserver writes the GenAI-Perf artifacts of `profile` and
// `analyze` points as RunExperiment measures them: each point in its own
// GenAI-Perf folder (<artifact-dir>/<model>-openai-chat-concurrency8),
// its records streamed there, its table printed; with a checkpoint
// (analyze), finished points are checkpointed and skipped on resume.
type GenAIPerfObserver struct {
	Session
	Exp *plan.Experiment
	// Points are the experiment's points by the label of their Params.
	Points map[string]*GenAIPerfPoint
	// Experiment names the records' experiment ("" for profile).
	Experiment string
	// Header prints "== label ==" before each point (analyze).
	Header     bool
	Checkpoint *SweepCheckpoint
	done       int
	// resumed are the points taken from the checkpoint, left as written.
	resumed map[string]bool
}

// point is the GenAI-Perf point of p; the observer is only given the
// experiment its Points were compiled for, so a miss is a programming
// error, reported rather than dereferenced.
func (o *GenAIPerfObserver) point(p plan.Params) (*GenAIPerfPoint, error) {
	if pt, ok := o.Points[p.Label()]; ok {
		return pt, nil
	}
	return nil, failure.Runf("internal error: no GenAI-Perf point %s", p.Label())
}

// Finished is runtime.Resumer: a point the checkpoint holds is not
// measured again.
func (o *GenAIPerfObserver) Finished(key runtime.PointKey) (*runtime.Outcome, bool) {
	pt, err := o.point(key.Params)
	if err != nil {
		return nil, false
	}
	done, ok := o.Checkpoint.find(pt.Config)
	if !ok {
		return nil, false
	}
	fmt.Fprintf(o.Stdout, "%s:%s found in checkpoint - skipping profiling...\n", o.Checkpoint.ConfigName(done.ID), pt.Label)
	if o.resumed == nil {
		o.resumed = map[string]bool{}
	}
	o.resumed[pt.Label] = true
	o.Checkpoint.ids[pt.Label] = done.ID
	out := done.Result().Outcome
	if out.Telemetry, err = storedrun.ReadTelemetry(done.Dir, &out.Summary, o.Exp.CostPerHour, o.Exp.Currency); err != nil {
		return nil, false // measure it again rather than lose its telemetry
	}
	return out, true
}

func (o *GenAIPerfObserver) RunStarting(key runtime.PointKey, job *runtime.Job) (runtime.RunWatch, error) {
	pt, err := o.point(key.Params)
	if err != nil {
		return nil, err
	}
	if o.Header {
		fmt.Fprintf(o.Stdout, "\n== %s ==\n", pt.Label)
	}
	log.Info().Str("target", targets(o.Exp.Endpoint)).Str("point", pt.Label).Msg("profiling")
	rec := genaiPerfRecord(o.Exp, job, &pt.Run, key, o.done)
	id := records.Meta{Experiment: o.Experiment, Point: pt.Label}
	sink, err := openPointSink(pt.Run.Dir(), &pt.Run, id, rec, job, o.Sink)
	if err != nil {
		return nil, failure.Runf("%w", err)
	}
	progress := o.Display.Start(pt.Label, job.Point.MeasuredRequests(), job.Point.Warmup)
	return &genaiPerfWatch{o: o, pt: pt, sink: sink, progress: progress}, nil
}

// PointDone writes the point's GenAI-Perf JSON and CSV and prints its
// table, then checkpoints it when it ended normally. A point no request
// could connect to stops the sweep (exit 3); server faults are data.
func (o *GenAIPerfObserver) PointDone(p *runtime.PointResult) error {
	o.Display.End()
	o.done++
	pt, err := o.point(p.Params)
	if err != nil || o.resumed[pt.Label] {
		return err
	}
	out := p.Outcome
	pt.Run.TokenCounting = out.Counting.String()
	if err := writePoint(o.Stdout, pt.Run.Dir(), &pt.Run, out); err != nil {
		return failure.Runf("writing artifacts: %w", err)
	}
	if out.Interrupted { // the caller reports the interrupt (exit 130), whatever else failed
		return nil
	}
	if err := unreachable(out); err != nil {
		return err
	}
	return o.Checkpoint.save(pt, p)
}

// genaiPerfWatch follows one run of a GenAI-Perf point into its folder.
type genaiPerfWatch struct {
	o        *GenAIPerfObserver
	pt       *GenAIPerfPoint
	sink     *pointSink
	progress *engine.Progress
}

func (w *genaiPerfWatch) Records() runtime.RecordWriter { return w.sink }
func (w *genaiPerfWatch) Progress() *engine.Progress    { return w.progress }

func (w *genaiPerfWatch) Finish(out *runtime.Outcome) error {
	if out == nil {
		w.sink.Abandon()
		return nil
	}
	w.o.Display.End() // before Finish's own messages, so they do not interleave with the bar
	w.pt.Run.TokenCounting = out.Counting.String()
	if err := w.sink.Finish(w.o.Stderr, &w.pt.Run, out, w.pt.Label); err != nil {
		return failure.Runf("writing records: %w", err)
	}
	return nil
}

// genaiPerfRecord is the saved plan of a GenAI-Perf point: the experiment
// with this point's own load and stop (an analyze point is profile with
// one flag changed), its prompts described as the console describes them.
func genaiPerfRecord(exp *plan.Experiment, job *runtime.Job, run *genaiperf.Run, key runtime.PointKey, index int) runtime.PointRecord {
	point := *exp
	point.Load, point.Requests, point.Duration = job.Point.Load, job.Point.Stop.Requests, job.Point.Stop.Duration
	rec := runtime.RecordOf("", &point, key, index)
	rec.Plan.Dataset = plan.Described(promptSource(run))
	return rec
}

// unreachable is the failure of a point no request could connect to: the
// run cannot be carried out (exit 3). Server faults are data.
func unreachable(out *runtime.Outcome) error {
	s := out.Summary
	if s.Completed == 0 && s.Failed > 0 && s.Errors[0].Class == metrics.ErrConnect && len(s.Errors) == 1 {
		return failure.Runf("no request could connect to %s: %s", out.Target, s.Errors[0].Message)
	}
	return nil
}

// targets names every replica of the endpoint, credentials removed.
func targets(e plan.Endpoint) string {
	urls := e.ReplicaURLs()
	out := make([]string, len(urls))
	for i, u := range urls {
		out[i] = plan.RedactURL(u)
	}
	return strings.Join(out, ", ")
}
