package artifacts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
)

// PointFile is one run of one point's records file opened for reading,
// with what its footer says about the run. It exists so that `report`
// and `compare` read a stored point the same way: a killed run's file
// recovered first, the saved plan decoded, and a schema version 1 file's
// goodput, counting and parameters read back from its run description.
type PointFile struct {
	Path string
	Meta records.Meta
	// Run is the GenAI-Perf description of the run stored with it.
	Run genaiperf.Run
	// Plan is the saved plan; nil in a file of schema version 1.
	Plan     *runtime.PointRecord
	Goodput  []metrics.SLO
	Counting runtime.Counting
	// Params are the point's parameters (its load and swept values).
	Params runtime.Params
	f      *os.File
	size   int64
}

// OpenPoint opens the records file at path; progress messages (a
// recovery) go to stderr. Every error is an Input failure naming the file.
func OpenPoint(stderr io.Writer, path string) (*PointFile, error) {
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
	p, err := describePoint(f, size, path)
	if err != nil {
		f.Close()
		return nil, failure.Inputf("%s: %w", path, err)
	}
	return p, nil
}

// describePoint reads the footer of an open records file.
func describePoint(f *os.File, size int64, path string) (*PointFile, error) {
	meta, err := records.ReadMeta(f, size)
	if err != nil {
		return nil, err
	}
	p := &PointFile{Path: path, Meta: meta, f: f, size: size}
	if err := json.Unmarshal([]byte(meta.Config), &p.Run); err != nil {
		return nil, fmt.Errorf("the file has no run description to render reports from (written by llmbench %q): %v", meta.Version, err)
	}
	if p.Plan, err = savedPlan(meta); err != nil {
		return nil, err
	}
	if p.Goodput, p.Counting, err = goodputAndCounting(p.Plan, &p.Run); err != nil {
		return nil, err
	}
	if p.Plan != nil {
		p.Params = p.Plan.Point.Params
		return p, nil
	}
	// A profile point's label is its GenAI-Perf folder name, which names
	// no parameter: its load is the run's stimulus.
	if p.Params, err = pointParams(meta.Point, &p.Run); err != nil {
		p.Params = withStimulus(runtime.Params{}, &p.Run)
	}
	return p, nil
}

// Each calls fn with every record in file (completion) order, a page at
// a time; an error from fn stops the read and is returned as is.
func (p *PointFile) Each(fn func(*metrics.Record) error) error {
	_, err := records.ReadEach(p.f, p.size, fn)
	return err
}

// Close closes the file.
func (p *PointFile) Close() error { return p.f.Close() }
