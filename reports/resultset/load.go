package resultset

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
)

// The two ways a folder of several runs fails to load as one set, which
// LoadHistory tells from the others (an unreadable file stays an error).
var (
	errNothing    = errors.New("no records.parquet and no profile_export.json found")
	errSameRepeat = errors.New("keep one of them")
)

// Load reads the result set at path: every records.parquet at or below
// it (a run folder, an analyze or profile artifact folder, a point
// folder, a records file), or, when it holds none, a GenAI-Perf /
// perf_analyzer profile_export.json (the file, or one in the folder),
// imported as `llmbench report` imports it. Every error is an Input
// failure naming the path.
func Load(path string, opt Options) (*Set, error) {
	if opt.Stderr == nil {
		opt.Stderr = io.Discard
	}
	if _, err := os.Stat(path); err != nil {
		return nil, failure.Inputf("%w", err)
	}
	files, err := artifacts.FindRecords(path)
	if err != nil {
		return nil, failure.Inputf("%s: %w", path, err)
	}
	set := &Set{Path: path}
	switch export, ok := ExportPath(path); {
	case len(files) > 0:
		err = set.addRecords(opt.Stderr, files)
	case ok:
		err = set.addExport(export, opt.Import)
	default:
		err = failure.Inputf("%s: %w", path, errNothing)
	}
	if err != nil {
		return nil, err
	}
	set.finish()
	return set, nil
}

// addRecords reads every records file, grouping the repeats of a point.
func (s *Set) addRecords(stderr io.Writer, files []string) error {
	byKey := map[string]*Point{}
	for _, file := range files {
		p, rep, err := readPoint(stderr, file)
		if err != nil {
			return err
		}
		key := p.Scenario + "\x00" + p.Experiment + "\x00" + p.Label()
		have := byKey[key]
		if have == nil {
			byKey[key] = p
			s.Points = append(s.Points, p)
			have = p
		}
		for _, r := range have.Repeats {
			if r.Index == rep.Index {
				return failure.Inputf("%s and %s are both repeat %d of %s: %w", r.Source, file, rep.Index, p.Name(), errSameRepeat)
			}
		}
		have.Repeats = append(have.Repeats, rep)
	}
	return nil
}

// readPoint reads one records file into its point and repeat, the
// summary computed as the run computed it (records in completion order,
// the point's goodput SLOs).
func readPoint(stderr io.Writer, file string) (*Point, *Repeat, error) {
	pf, err := artifacts.OpenPoint(stderr, file)
	if err != nil {
		return nil, nil, err
	}
	defer pf.Close()
	acc := metrics.NewAccumulator(metrics.Options{Goodput: pf.Goodput})
	var recs []metrics.Record
	if err := pf.Each(func(r *metrics.Record) error {
		acc.Add(r)
		recs = append(recs, *r)
		return nil
	}); err != nil {
		return nil, nil, failure.Inputf("%s: %w", file, err)
	}
	p := &Point{Experiment: pf.Meta.Experiment, Scenario: pf.Meta.Scenario, Params: pf.Params, Desc: describe(pf), Goodput: pf.Goodput}
	rep := &Repeat{Index: max(pf.Meta.Repeat, 1), Source: file, Records: recs, Summary: acc.Summary(),
		Partial: pf.Meta.Recovered || pf.Plan != nil && pf.Plan.Partial}
	if t, err := artifacts.ReadPointTelemetry(filepath.Dir(file), &rep.Summary, pf.Plan); err != nil {
		fmt.Fprintf(stderr, "llmbench: %s: %v (compared without its telemetry)\n", file, err)
	} else if t != nil {
		rep.Telemetry = &t.Summary
	}
	if pf.Plan != nil {
		rep.Index = max(pf.Plan.Point.Repeat, 1)
		p.CostPerHour = pf.Plan.Plan.Cost
	}
	return p, rep, nil
}

// describe is what a stored point's plan (or, in a version 1 file, its
// run description) says about what it measured.
func describe(pf *artifacts.PointFile) Description {
	d := Description{TokenCounting: string(pf.Counting.Mode)}
	if pf.Plan == nil {
		d.Models, d.API, d.Stream = pf.Run.Models, pf.Run.EndpointType, pf.Run.Streaming
		d.Load = loadText(pf.Params, pf.Run.RequestDistribution)
		return d
	}
	ep := pf.Plan.Plan.Endpoint
	d.Models, d.API, d.Stream, d.Dataset = ep.Models, ep.API, ep.Stream, pf.Plan.Plan.Dataset
	if len(d.Models) == 0 {
		d.Models = []string{ep.Model}
	}
	d.Load = loadText(pf.Params, pf.Plan.Plan.Traffic.Arrival)
	return d
}

// ExportPath finds a perf_analyzer export: path itself when it is a JSON
// file, or profile_export.json inside the folder path.
func ExportPath(path string) (string, bool) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() && strings.HasSuffix(path, ".json") {
		return path, true
	}
	candidate := filepath.Join(path, "profile_export.json")
	_, err := os.Stat(candidate)
	return candidate, err == nil
}

// paramsOf is an export's load as point parameters.
func paramsOf(mode string, v float64) runtime.Params {
	if mode == "request_rate" {
		return runtime.Params{metrics.ParamRate: v}
	}
	return runtime.Params{metrics.ParamConcurrency: v}
}

// num prints a parameter value without a needless fraction.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
