package artifacts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// pointSink takes one run of a point's records as they finish and writes
// what needs them into the point's folder — records.parquet,
// profile_export.json and the data of the point plots — so no record is
// kept once it is written and a crash loses at most the records.parquet
// row group in progress. inputs.json is written when the sink opens.
//
// An auto point's records come unflagged: its warm-up cut, the first
// records written, is known when it ends. records.parquet takes them as
// they come (the cut is saved in the footer's plan, and readers apply
// it: storedrun), and profile_export.json, which must hold no warm-up
// request, holds their entries back until Finish cuts the warm-up.
type pointSink struct {
	parquet    *os.File
	records    *records.Writer
	exportFile *os.File
	export     *genaiperf.ProfileExportWriter
	plots      *plots.PointData // nil when plots are off
	drawn      *PointPlots
	dir        string
	// record is the point's saved plan, completed by finish.
	record runtime.PointRecord
}

// SinkOptions are how every point's files are written.
type SinkOptions struct {
	// Plots collects the data of the point plots and draws them.
	Plots bool
	// Version is the llmbench version recorded in records.parquet.
	Version string
	// FlushInterval bounds how much of records.parquet a crash can lose
	// (0: the records package's default; see docs/records.md).
	FlushInterval time.Duration
	// Drawn keeps the point plots drawn, for the run's report.html; nil
	// keeps none.
	Drawn *PointPlots
}

// openPointSink starts the files of job, one run of a point, in dir. id
// names the point (scenario, experiment, point, repeat) and rec is its
// saved plan; the rest of the records metadata comes from r. The token
// counting mode is set from the start, so a file a crash left without its
// footer still says how its tokens were counted.
func openPointSink(dir string, r *genaiperf.Run, id records.Meta, rec runtime.PointRecord, job *runtime.Job, opts SinkOptions) (_ *pointSink, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	payloads := make([][]byte, len(job.Requests))
	for i := range job.Requests {
		payloads[i] = job.Requests[i].Body
	}
	rec.Counting = runtime.Counting{Mode: job.Count}
	r.TokenCounting = rec.Counting.String()
	if err := WriteFile(filepath.Join(dir, "inputs.json"), func(w io.Writer) error { return genaiperf.WriteRunInputs(w, r, payloads) }); err != nil {
		return nil, err
	}
	s := &pointSink{dir: dir, record: rec, drawn: opts.Drawn}
	defer func() {
		if err != nil {
			s.Abandon() // the sink as far as it got, not the nil returned
		}
	}()
	if s.parquet, err = os.Create(filepath.Join(dir, "records.parquet")); err != nil {
		return nil, err
	}
	meta := id
	meta.Model, meta.EndpointURL, meta.API, meta.Stream = firstModel(r), r.URL, r.EndpointType, r.Streaming
	meta.Load, meta.Version = r.DirName(), opts.Version
	if meta.Config, err = runDescription(r); err != nil {
		return nil, err
	}
	if meta.PointRecord, err = rec.Encode(); err != nil {
		return nil, err
	}
	if s.records, err = records.NewWriterOptions(s.parquet, meta, records.Options{FlushInterval: opts.FlushInterval}); err != nil {
		return nil, err
	}
	if s.exportFile, err = os.Create(filepath.Join(dir, r.ProfileExportFile)); err != nil {
		return nil, err
	}
	s.export = genaiperf.NewProfileExportWriter(s.exportFile, dir, r, payloads)
	if job.Point.Stop.Steady != nil {
		s.export.Hold() // its warm-up, the first records written, is known when it ends
	}
	if opts.Plots {
		s.plots = plots.NewPointData()
	}
	return s, nil
}

// runDescription is the run as JSON, credentials stripped: what `llmbench
// report` renders from.
func runDescription(r *genaiperf.Run) (string, error) {
	described := *r
	described.URL = plan.RedactURL(r.URL)
	config, err := json.Marshal(described)
	return string(config), err
}

// Write is runtime.RecordWriter: every record goes to each file.
func (s *pointSink) Write(recs ...metrics.Record) error {
	for i := range recs {
		if s.plots != nil {
			s.plots.Add(&recs[i])
		}
	}
	return errors.Join(s.records.Write(recs...), s.export.Write(recs...))
}

// Finish completes the files now that the outcome is known: the records
// footer gets how tokens were counted and the final run description, and
// the plots are drawn, the point's telemetry over time with them (a plot
// that fails is reported, not fatal).
func (s *pointSink) Finish(stderr io.Writer, r *genaiperf.Run, out *runtime.Outcome, plotTitle string) error {
	config, err := runDescription(r)
	if err != nil {
		return err
	}
	s.records.Finish(r.TokenCounting, config)
	s.record.Counting, s.record.Partial, s.record.Client = out.Counting, out.Interrupted, out.Summary.Client
	s.record.Shard = out.Shard
	s.record.Steady = out.Steady
	s.record.StagesFrom = out.StagesFrom
	saved, err := s.record.Encode()
	if err != nil {
		return err
	}
	s.records.SetPointRecord(saved)
	if out.Steady != nil {
		err = s.export.Cut(out.Steady.Warmup)
	}
	err = errors.Join(err, out.RecordsErr,
		s.records.Close(), s.parquet.Close(),
		s.export.Close(), s.exportFile.Close())
	if err != nil {
		return fmt.Errorf("%s: %w", s.dir, err)
	}
	if s.plots != nil {
		s.drawn.draw(stderr, s.dir, plotTitle, plotTitle, s.plots, out.Telemetry)
	}
	return nil
}

// Abandon closes the files of a run that never happened and removes them.
func (s *pointSink) Abandon() {
	if s.export != nil {
		s.export.Close() // removes its temporary file of failures
	}
	for _, f := range []*os.File{s.parquet, s.exportFile} {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}
	os.Remove(filepath.Join(s.dir, "inputs.json"))
	// The run's folder, and the point's or experiment's above it, when
	// nothing else is in them (os.Remove leaves a folder that is not
	// empty): a run that failed before sending leaves no empty folder.
	if os.Remove(s.dir) == nil {
		os.Remove(filepath.Dir(s.dir))
	}
}

// Dir is the folder the sink writes into.
func (s *pointSink) Dir() string { return s.dir }
