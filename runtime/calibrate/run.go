package calibrate

import (
	"cmp"
	"context"
	"fmt"
	"os"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
)

// RunSpec is one run of a plan.
type RunSpec struct {
	Pool  string
	Index int // within its pool, from 0
	// Seed seeds what the run draws (a simulator's jitter and drift, the
	// prompts); it depends only on the pool's position and Index, so
	// adding runs to a pool later keeps the seeds of the runs measured.
	Seed int64
}

// Run is one measured run: the records of each of its points' repeats,
// as `run` writes them.
type Run struct {
	Spec RunSpec
	// Drift is the speed factor a simulator drew for the run (1 on a real
	// server): every delay of the run was multiplied by it.
	Drift   float64
	Started time.Time
	Wall    time.Duration
	// Load1 is the machine's 1-minute load average when the run started.
	Load1 float64
	// Points are the run's points in the order run, each with the records
	// of every repeat, token-counted, in completion order.
	Points []PointRecords
	// Records is how stores written before Points held a run of one point
	// measured once; reading such a run moves them into Points.
	Records []metrics.Record
}

// PointRecords are one point's measured records, repeat by repeat.
type PointRecords struct {
	Experiment, Label string
	Params            plan.Params
	Repeats           [][]metrics.Record
}

// upgrade moves a run of an older store into Points.
func (r *Run) upgrade() {
	if len(r.Points) == 0 && r.Records != nil {
		r.Points = []PointRecords{{Repeats: [][]metrics.Record{r.Records}}}
	}
	r.Records = nil
}

// Single is the records of a run of one point measured once (what
// bench/calibrate measures); nil for any other run.
func (r *Run) Single() []metrics.Record {
	if len(r.Points) != 1 || len(r.Points[0].Repeats) != 1 {
		return nil
	}
	return r.Points[0].Repeats[0]
}

// RepeatData is one repeat's records as a judge reads a stored run
// (storedrun's Reduce and Point.Runs): the summary accumulated over the
// records in completion order, the per-request values in send order.
func RepeatData(records []metrics.Record) metrics.RunData {
	acc := metrics.NewAccumulator(metrics.Options{})
	for i := range records {
		acc.Add(&records[i])
	}
	s := acc.Summary()
	recs := slices.Clone(records)
	slices.SortStableFunc(recs, func(a, b metrics.Record) int {
		return cmp.Or(cmp.Compare(a.Sent, b.Sent), cmp.Compare(a.ID, b.ID))
	})
	return metrics.RunData{Summary: &s, Records: recs}
}

// Failed is the first failed request of the run's records, nil when
// every request succeeded. A failed request has no latency: a run with
// failures would be judged on fewer requests than its pool's others.
func (r *Run) Failed() *metrics.Record {
	for _, p := range r.Points {
		for _, rep := range p.Repeats {
			for i := range rep {
				if rep[i].Err != nil && !rep[i].Warmup {
					return &rep[i]
				}
			}
		}
	}
	return nil
}

// MeasureMissing measures, one at a time, every run of specs the store
// lacks (never two at once: they would slow each other down and share the
// noise they are meant to show), with measure. Each run is stored as it
// ends, so an interruption loses only the run in flight. progress, when
// set, is told of every run ended (done of total to measure).
func MeasureMissing(ctx context.Context, st *Store, specs []RunSpec, measure func(context.Context, RunSpec) (*Run, error), progress func(done, total int, r *Run)) error {
	var todo []RunSpec
	for _, s := range specs {
		if !st.Has(s) {
			todo = append(todo, s)
		}
	}
	for i, spec := range todo {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted after %d of %d runs (the store keeps them): %w", i, len(todo), err)
		}
		started, load := time.Now(), LoadAverage()
		r, err := measure(ctx, spec)
		if err != nil && ctx.Err() != nil {
			return fmt.Errorf("interrupted in run %s #%d, after %d of %d runs (the store keeps them; the same command resumes): %w", spec.Pool, spec.Index+1, i, len(todo), ctx.Err())
		}
		if err != nil {
			return fmt.Errorf("run %s #%d: %w", spec.Pool, spec.Index+1, err)
		}
		r.Spec, r.Started, r.Load1 = spec, started, load
		r.Wall = time.Since(started)
		if err := st.Add(r); err != nil {
			return err
		}
		if progress != nil {
			progress(i+1, len(todo), r)
		}
	}
	return nil
}

// Missing counts the runs of specs the store lacks.
func (st *Store) Missing(specs []RunSpec) int {
	n := 0
	for _, s := range specs {
		if !st.Has(s) {
			n++
		}
	}
	return n
}

// Collector is the runtime.Observer of one run: it keeps the records of
// every point's repeats (token-counted, in completion order, as `run`
// writes them to records.parquet) and whether any was interrupted.
type Collector struct {
	// Display, when set, shows each repeat's progress (a bar on a
	// terminal), titled Title and the point.
	Display Display
	Title   string

	mu          sync.Mutex
	points      []PointRecords
	cur         *[]metrics.Record
	progress    *engine.Progress
	Interrupted bool
}

// Display is a live view of one repeat at a time (reports/progress.Live).
type Display interface {
	Start(title string, requests, warmup int) *engine.Progress
	End()
}

// RunStarting is runtime.Observer: a repeat of a point begins.
func (c *Collector) RunStarting(key runtime.PointKey, job *runtime.Job) (runtime.RunWatch, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	label := key.Params.Label()
	if n := len(c.points); n == 0 || c.points[n-1].Experiment != key.Experiment || c.points[n-1].Label != label {
		c.points = append(c.points, PointRecords{Experiment: key.Experiment, Label: label, Params: key.Params})
	}
	p := &c.points[len(c.points)-1]
	p.Repeats = append(p.Repeats, nil)
	c.cur = &p.Repeats[len(p.Repeats)-1]
	c.progress = nil
	if c.Display != nil {
		c.progress = c.Display.Start(c.Title+key.String(), job.Point.MeasuredRequests(), job.Point.Warmup)
	}
	return c, nil
}

// PointDone is runtime.Observer.
func (c *Collector) PointDone(*runtime.PointResult) error { return nil }

// Records is runtime.RunWatch.
func (c *Collector) Records() runtime.RecordWriter { return c }

// Progress is runtime.RunWatch.
func (c *Collector) Progress() *engine.Progress { return c.progress }

// Finish is runtime.RunWatch.
func (c *Collector) Finish(out *runtime.Outcome) error {
	if out == nil || out.Interrupted {
		c.Interrupted = true
	}
	if c.Display != nil {
		c.Display.End()
	}
	return nil
}

// Write is runtime.RecordWriter.
func (c *Collector) Write(recs ...metrics.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.cur = append(*c.cur, recs...)
	return nil
}

// Points are the records collected, point by point.
func (c *Collector) Points() []PointRecords { return c.points }

// Machine names the CPU and core count, for the tables.
func Machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("nproc %d (%s), %s/%s", goruntime.NumCPU(), model, goruntime.GOOS, goruntime.GOARCH)
}

// LoadAverage is the 1-minute load average (0 where /proc has none).
func LoadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
