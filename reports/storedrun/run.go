package storedrun

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	runplan "github.com/llmbench/llmbench/runtime/plan"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/failure"
)

// Run is what a path holds: every point stored at or below it, in
// scenario, experiment and load order — the unit `compare` compares and
// a baseline is.
type Run struct {
	// Path is the path the run was opened from, as given.
	Path   string
	Points []*Point
	// Start is the earliest request sent in any of its records, once
	// Summarize has read them: what a history of runs is ordered by
	// (folder times change when copied).
	Start time.Time
}

// Point is one load point of one experiment with all its repeats.
type Point struct {
	// Experiment is the experiment's name; "" for a profile point and an
	// imported export, which belong to no experiment.
	Experiment string
	Params     runplan.Params
	// Scenario is the scenario file's name ("" for profile and analyze).
	Scenario string
	Desc     Description
	// Repeats are the point's runs in repeat order.
	Repeats []*Repeat
	// Goodput are the SLOs its goodput was judged against.
	Goodput []metrics.SLO
	// CostPerHour is its experiment's price (cost_per_hour=), 0 without.
	CostPerHour float64
	// BaselineGates are its experiment's baseline gates that apply at
	// this point: what `llmbench compare` judges as the point's family,
	// so it reaches the verdicts the run's own gates reached.
	BaselineGates []metrics.Gate
}

// Label names the point as its folder does: "concurrency16".
func (p *Point) Label() string { return p.Params.Label() }

// Name names the point for people: "chat / concurrency16", or the label
// alone for a point of no experiment.
func (p *Point) Name() string {
	if p.Experiment == "" {
		return p.Label()
	}
	return p.Experiment + " / " + p.Label()
}

// Description is what decides whether two points measured the same
// thing (regression.Check).
type Description struct {
	Models []string
	// API is the endpoint type: chat, completions, embeddings, ...
	API    string
	Stream bool
	// TokenCounting is the mode ISL and OSL were counted in (tokenizer,
	// usage, chunks).
	TokenCounting string
	// Dataset is the dataset as the scenario described it; "" when the
	// source does not say (an imported export, a version 1 records file).
	Dataset string
	// MeanISL and MeanOSL are over the completed requests of every
	// repeat, once Summarize has read them.
	MeanISL, MeanOSL float64
	// Load is the point's load in words: "concurrency 16", "rate 10/s poisson".
	Load string
	// Size is how much the scenario planned to measure of the point:
	// "100 requests, repeats 3" (what ends each run, and how many runs);
	// "" when the source does not say (a version 1 file, an import).
	Size string
	// Imported marks a point read from a profile_export.json.
	Imported bool
}

// Options says how to open a run.
type Options struct {
	// Stderr receives notes (a killed run's file recovered); nil drops them.
	Stderr io.Writer
	// Import counts the tokens of an imported export.
	Import ImportOptions
}

// The ways a folder of several runs fails to open as one run, which
// OpenHistory tells from the others (an unreadable file stays an error).
var (
	errNothing    = errors.New("no records.parquet and no other tool's results (profile_export.json, profile_export.jsonl, benchmarks.json) found")
	errSameRepeat = errors.New("keep one of them")
	// errBothSides is an interleaved A/B run's two sides read as one run:
	// each is a run of its own (a/, b/), judged paired by the run itself.
	errBothSides = errors.New("give one side's folder; the run's own compare.json judged them paired")
)

// Open reads the footers of every records.parquet at or below path (a
// run folder, an analyze or profile artifact folder, a point folder, a
// records file), or, when it holds none, imports a GenAI-Perf /
// perf_analyzer profile_export.json (the file, or one in the folder) as
// `llmbench report` imports it. No record is read yet: Summarize reads
// them, Repeat.Each streams them. Every error is an Input failure naming
// the path.
func Open(path string, opt Options) (*Run, error) {
	if opt.Stderr == nil {
		opt.Stderr = io.Discard
	}
	if _, err := os.Stat(path); err != nil {
		return nil, failure.Inputf("%w", err)
	}
	files, err := FindRecords(path)
	if err != nil {
		return nil, failure.Inputf("%s: %w", path, err)
	}
	run := &Run{Path: path}
	switch export, ok := ExportPath(path); {
	case len(files) > 0:
		err = run.addRecords(opt.Stderr, files)
	case ok:
		err = run.addExport(opt.Stderr, export, opt.Import)
	default:
		err = failure.Inputf("%s: %w", path, errNothing)
	}
	if err != nil {
		return nil, err
	}
	run.sort()
	return run, nil
}

// Load is Open then Summarize: a run ready to be compared.
func Load(path string, opt Options) (*Run, error) {
	run, err := Open(path, opt)
	if err != nil {
		return nil, err
	}
	return run, run.Summarize(opt.Stderr)
}

// addRecords reads every records file's footer, grouping the repeats of
// a point.
func (r *Run) addRecords(stderr io.Writer, files []string) error {
	byKey := map[string]*Point{}
	for _, file := range files {
		rep, err := OpenFile(stderr, file)
		if err != nil {
			return err
		}
		p := pointOf(rep)
		key := p.Scenario + "\x00" + p.Experiment + "\x00" + p.Label()
		have := byKey[key]
		if have == nil {
			byKey[key] = p
			r.Points = append(r.Points, p)
			have = p
		}
		for _, o := range have.Repeats {
			if o.Side() != rep.Side() {
				return failure.Inputf("%s holds both sides of the interleaved A/B point %s (%s and %s): %w",
					r.Path, p.Name(), o.pointDir(), rep.pointDir(), errBothSides)
			}
			if o.Index == rep.Index {
				return failure.Inputf("%s and %s are both repeat %d of %s: %w", o.Path, file, rep.Index, p.Name(), errSameRepeat)
			}
		}
		have.Repeats = append(have.Repeats, rep)
	}
	return nil
}

// pointOf is the point a stored repeat measured, as its plan (or, in a
// version 1 file, its run description) says.
func pointOf(rep *Repeat) *Point {
	p := &Point{Experiment: rep.Meta.Experiment, Scenario: rep.Meta.Scenario, Params: rep.Params, Goodput: rep.Goodput}
	p.Desc = Description{TokenCounting: string(rep.Counting.Mode)}
	if rep.Plan == nil {
		run := &rep.Described
		p.Desc.Models, p.Desc.API, p.Desc.Stream = run.Models, run.EndpointType, run.Streaming
		p.Desc.Load = loadText(p.Params, run.RequestDistribution)
		return p
	}
	plan := &rep.Plan.Plan
	ep := plan.Endpoint
	p.Desc.Models, p.Desc.API, p.Desc.Stream = ep.Models, string(ep.API), ep.Stream
	if plan.Dataset != nil {
		p.Desc.Dataset = plan.Dataset.String()
	}
	if len(p.Desc.Models) == 0 {
		p.Desc.Models = []string{ep.Model}
	}
	p.Desc.Load = loadText(p.Params, string(plan.Load.Arrival))
	p.Desc.Size = fmt.Sprintf("%s, repeats %d", plan.StopText(), max(plan.Repeats, 1))
	p.CostPerHour = plan.CostPerHour
	for _, g := range plan.Gates {
		if g.Baseline && g.Applies(p.Params) {
			p.BaselineGates = append(p.BaselineGates, g)
		}
	}
	return p
}

// sort orders the points and their repeats.
func (r *Run) sort() {
	slices.SortStableFunc(r.Points, func(a, b *Point) int {
		return cmp.Or(strings.Compare(a.Scenario, b.Scenario), strings.Compare(a.Experiment, b.Experiment), a.Params.Compare(b.Params))
	})
	for _, p := range r.Points {
		slices.SortFunc(p.Repeats, func(a, b *Repeat) int { return cmp.Compare(a.Index, b.Index) })
	}
}

// Summarize reads every repeat's records once, a page at a time, into
// its Outcome (summary, components, replicas) and telemetry, and sets
// what spans repeats: the run's start and each point's mean sequence
// lengths. A telemetry file that cannot be read is a note on stderr: the
// run is compared without it.
func (r *Run) Summarize(stderr io.Writer) error {
	if stderr == nil {
		stderr = io.Discard
	}
	for _, p := range r.Points {
		for _, rep := range p.Repeats {
			if err := rep.summarize(stderr); err != nil {
				return err
			}
			if rep.start > 0 && (r.Start.IsZero() || rep.start < r.Start.UnixNano()) {
				r.Start = time.Unix(0, rep.start)
			}
		}
		p.Desc.MeanISL, p.Desc.MeanOSL = meanLengths(p.Repeats)
	}
	return nil
}

func (rep *Repeat) summarize(stderr io.Writer) error {
	if rep.Outcome != nil {
		return nil
	}
	out, err := rep.Reduce(ReduceOptions{})
	if err != nil {
		return err
	}
	if out.Telemetry, err = rep.Telemetry(&out.Summary); err != nil {
		fmt.Fprintf(stderr, "llmbench: %s: %v (compared without its telemetry)\n", rep.Path, err)
	}
	rep.Outcome = out
	return nil
}

// meanLengths are the mean ISL and OSL over every repeat's completed
// requests, each repeat weighted by its count.
func meanLengths(reps []*Repeat) (isl, osl float64) {
	mean := func(d func(*metrics.Summary) *metrics.Distribution) float64 {
		var sum float64
		var n int
		for _, r := range reps {
			if x := d(&r.Outcome.Summary); x != nil {
				sum += x.Avg * float64(x.Count)
				n += x.Count
			}
		}
		if n == 0 {
			return 0
		}
		return sum / float64(n)
	}
	return mean(func(s *metrics.Summary) *metrics.Distribution { return s.InputSequenceLength }),
		mean(func(s *metrics.Summary) *metrics.Distribution { return s.OutputSequenceLength })
}

// loadText is a point's load in words.
func loadText(p runplan.Params, arrival string) string {
	name, v, ok := p.Load()
	switch {
	case !ok:
		return "unknown load"
	case name == metrics.ParamRate && arrival != "":
		return "rate " + num(v) + "/s " + arrival
	case name == metrics.ParamRate:
		return "rate " + num(v) + "/s"
	case name == metrics.ParamReplaySpeed:
		return "replay speed " + num(v)
	}
	return name + " " + num(v)
}

// num prints a parameter value without a needless fraction.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Experiments are the names of the run's experiments, in point order.
func (r *Run) Experiments() []string {
	var names []string
	for _, p := range r.Points {
		if p.Experiment != "" && !slices.Contains(names, p.Experiment) {
			names = append(names, p.Experiment)
		}
	}
	return names
}

// Only is the run restricted to the points of one experiment — or, for a
// run whose points belong to no experiment (a profile folder, an
// imported export), the whole run.
func (r *Run) Only(experiment string) *Run {
	return &Run{Path: r.Path, Points: r.PointsOf(experiment), Start: r.Start}
}

// PointsOf are the run's points of the named experiment, or every point
// when the run's points belong to no experiment.
func (r *Run) PointsOf(experiment string) []*Point {
	var named, none []*Point
	for _, p := range r.Points {
		switch p.Experiment {
		case experiment:
			named = append(named, p)
		case "":
			none = append(none, p)
		}
	}
	if len(named) > 0 || len(none) < len(r.Points) {
		return named
	}
	return none
}
