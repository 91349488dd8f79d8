package storedrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// Repeat is one stored run of one point: one records file (or one
// imported export), with what its footer says about the run. Its records
// are read from the file each time they are asked for, a page at a time.
type Repeat struct {
	// Index counts from 1.
	Index int
	// Path is the file as found: a records.parquet, or an imported
	// profile_export.json.
	Path string
	Meta records.Meta
	// Described is the GenAI-Perf description of the run stored with it
	// (for an import, made from the export).
	Described genaiperf.Run
	// Plan is the saved plan; nil in a file of schema version 1 and in an
	// import, which have none (see v1.go for what they tell instead).
	Plan     *runtime.PointRecord
	Goodput  []metrics.SLO
	Counting runtime.Counting
	// Params are the point's parameters (its load and swept values).
	Params plan.Params
	// Partial is set for a run interrupted or recovered from a kill.
	Partial bool
	// Outcome is what its records reduce to, once Summarize has read them.
	Outcome *runtime.Outcome

	// data is the file the records are read from: Path, or its recovery.
	data string
	// imported are an import's records, held: an export is one JSON
	// document, read whole.
	imported []metrics.Record
	// start is the earliest request sent, once Reduce has read them
	// (Unix ns).
	start int64
	// components are the dataset components its records name, once
	// Reduce has read them.
	components []string
}

// OpenFile reads the footer of the records file at path; a killed run's
// file is recovered beside it first, saying so on stderr (nil: nowhere).
// Every error is an Input failure naming the file, unless the recovery
// found nothing (ErrNothingRecovered, a Run failure).
func OpenFile(stderr io.Writer, path string) (*Repeat, error) {
	if stderr == nil {
		stderr = io.Discard
	}
	f, size, err := openRecordsFile(stderr, path)
	if err != nil {
		// Bad input, unless the recovery said otherwise (nothing recovered).
		class := failure.Input
		var c failure.Classifier
		if errors.As(err, &c) {
			class = c.FailureClass()
		}
		return nil, failure.New(class, fmt.Errorf("%s: %w", path, err))
	}
	defer f.Close()
	r, err := describe(f, size, path)
	if err != nil {
		return nil, failure.Inputf("%s: %w", path, err)
	}
	r.data = f.Name()
	return r, nil
}

// describe reads the footer of an open records file.
func describe(f *os.File, size int64, path string) (*Repeat, error) {
	meta, err := records.ReadMeta(f, size)
	if err != nil {
		return nil, err
	}
	r := &Repeat{Path: path, Meta: meta, Index: max(meta.Repeat, 1)}
	if err := json.Unmarshal([]byte(meta.Config), &r.Described); err != nil {
		return nil, fmt.Errorf("the file has no run description to render reports from (written by llmbench %q): %v", meta.Version, err)
	}
	if meta.PointRecord == "" {
		return r, r.describeV1()
	}
	rec, err := runtime.DecodePointRecord(meta.PointRecord)
	if err != nil {
		return nil, err
	}
	r.Plan, r.Goodput, r.Counting, r.Params = &rec, rec.Plan.Goodput, rec.Counting, rec.Point.Params
	r.Index = max(rec.Point.Repeat, 1)
	r.Partial = meta.Recovered || rec.Partial
	return r, nil
}

// Each calls fn with every record in file (completion) order, a page at
// a time, an auto point's warm-up flagged (warmupRows); an error from fn
// stops the read and is returned as is.
func (r *Repeat) Each(fn func(*metrics.Record) error) error {
	if r.data == "" {
		for i := range r.imported {
			if err := fn(&r.imported[i]); err != nil {
				return err
			}
		}
		return nil
	}
	f, size, err := openSized(r.data)
	if err != nil {
		return err
	}
	defer f.Close()
	warm, row := r.warmupRows(), 0
	_, err = records.ReadEach(f, size, func(rec *metrics.Record) error {
		rec.Warmup = rec.Warmup || row < warm
		row++
		return fn(rec)
	})
	return err
}

// warmupRows is how many leading rows of the file an auto point's
// warm-up rule cut: its records are written as they finish, before the
// cut is known, so the cut is saved at the end, in the footer's plan
// (files written before that flagged the same rows in the warmup
// column). 0 for a point without the rule, and for a killed auto point,
// whose recovered footer holds the plan as it began: its cut was never
// decided, and every row it kept reads as measured.
func (r *Repeat) warmupRows() int {
	if r.Plan == nil || r.Plan.Steady == nil {
		return 0
	}
	return r.Plan.Steady.Warmup
}

// All is Each as an iterator, for readers that pull (a k-way merge); the
// error of a read that failed is yielded last, with a nil record.
func (r *Repeat) All() iter.Seq2[*metrics.Record, error] {
	return func(yield func(*metrics.Record, error) bool) {
		stop := errors.New("stop")
		err := r.Each(func(rec *metrics.Record) error {
			if !yield(rec, nil) {
				return stop
			}
			return nil
		})
		if err != nil && !errors.Is(err, stop) {
			yield(nil, err)
		}
	}
}

// Dir is the folder of the repeat's files.
func (r *Repeat) Dir() string { return filepath.Dir(r.Path) }

// ReduceOptions say what Reduce computes beside the summary.
type ReduceOptions struct {
	// Track names the metrics whose per-request values the outcome's
	// Series keeps (as gates name them); none keeps no series.
	Track []*metrics.Metric
	// Observe, when set, is given every record as it is read.
	Observe func(*metrics.Record)
}

// Reduce reduces the repeat's records as the run reduced them — in
// completion order (the order of a floating-point sum shows in the last
// digit), with the point's goodput SLOs — into the summary, the dataset
// components' and replicas' summaries and, with Track, the series
// baseline gates compare on; what the run decided while it ran (the
// client's verdict, shards, steady state) comes from the saved plan. Its
// telemetry is left to Telemetry. An error reading the records is an
// Input failure naming the file.
func (r *Repeat) Reduce(opt ReduceOptions) (*runtime.Outcome, error) {
	acc := metrics.NewAccumulator(metrics.Options{Goodput: r.Goodput})
	parts := runtime.ComponentAccumulators{Goodput: r.Goodput}
	reps := runtime.ReplicaAccumulators{Goodput: r.Goodput}
	stages := runtime.StageAccumulators{Goodput: r.Goodput}
	if r.Plan != nil {
		reps.URLs = r.Plan.Plan.Endpoint.URLs
		if r.Plan.StagesFrom != 0 {
			stages.Load = r.Plan.Plan.Load
		}
	}
	var series *metrics.Series
	if len(opt.Track) > 0 {
		var err error
		if series, err = metrics.NewSeries(opt.Track...); err != nil {
			return nil, err
		}
	}
	first := int64(0)
	err := r.Each(func(rec *metrics.Record) error {
		acc.Add(rec)
		parts.Add(rec)
		reps.Add(rec)
		if stages.Load.Staged() {
			rec.Stage = stages.Load.StageOf(rec, r.Plan.StagesFrom)
			stages.Add(rec)
		}
		addMeasured(series, rec)
		if opt.Observe != nil {
			opt.Observe(rec)
		}
		if first == 0 || rec.Sent < first {
			first = rec.Sent
		}
		if c := rec.Component; c != "" && !slices.Contains(r.components, c) {
			r.components = append(r.components, c)
		}
		return nil
	})
	if err != nil {
		return nil, failure.Inputf("%s: %w", r.Path, err)
	}
	r.start = first
	out := &runtime.Outcome{Counting: r.Counting, Summary: acc.Summary(), Components: parts.Summaries(), Replicas: reps.Summaries(),
		Stages: stages.Summaries(), Goodput: r.Goodput, Series: series, Interrupted: r.Partial}
	if r.Plan != nil {
		out.Summary.Client = r.Plan.Client // judged from the client's CPU while it ran
		out.Shard, out.Shards = r.Plan.Shard, r.Plan.Shards
		out.Steady = r.Plan.Steady // decided while it ran; Each re-applies its cut
	}
	return out, nil
}

// Telemetry rebuilds the repeat's telemetry from its telemetry.parquet,
// reduced over the summary's window as the run reduced it, priced as its
// plan says; nil when it has none.
func (r *Repeat) Telemetry(s *metrics.Summary) (*runtime.PointTelemetry, error) {
	var cost float64
	var currency string
	if r.Plan != nil {
		cost, currency = r.Plan.Plan.CostPerHour, r.Plan.Plan.Currency
	}
	if r.data == "" {
		return nil, nil // an import has none
	}
	return ReadTelemetry(r.Dir(), s, cost, currency)
}

// ReadTelemetry rebuilds the telemetry in dir's telemetry.parquet,
// reduced over the summary's window, priced at costPerHour; nil when the
// folder has none. A checkpoint's resumed point reads it this way too.
func ReadTelemetry(dir string, s *metrics.Summary, costPerHour float64, currency string) (*runtime.PointTelemetry, error) {
	f, size, err := openSized(filepath.Join(dir, records.TelemetryFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	samples, account, err := records.ReadTelemetry(f, size)
	if err != nil {
		return nil, err
	}
	return runtime.RebuildTelemetry(samples, account, s, costPerHour, currency)
}

// Series is what baseline gates compare on (the metrics of track), read
// from the finished run's records file at path: a checkpoint keeps only
// a run's summary. Warm-up rows are left out, as the live run leaves
// them out of its series.
func Series(path string, track []*metrics.Metric) (*metrics.Series, error) {
	r, err := OpenFile(io.Discard, path)
	if err != nil {
		return nil, err
	}
	s, err := metrics.NewSeries(track...)
	if err != nil {
		return nil, err
	}
	return s, r.Each(func(rec *metrics.Record) error { addMeasured(s, rec); return nil })
}

// addMeasured adds a record to a series unless it is one of an auto
// point's warm-up requests, which are kept in records.parquet and left
// out of every metric (the live run's series leaves them out too); a nil
// series takes nothing.
func addMeasured(s *metrics.Series, rec *metrics.Record) {
	if s != nil && !rec.Warmup {
		s.Add(rec)
	}
}
