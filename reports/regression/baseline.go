package regression

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// BaselineOptions are the command line's say over baseline gates.
type BaselineOptions struct {
	// FailOnInconclusive fails a baseline gate that cannot tell.
	FailOnInconclusive bool
	// AllowMissing turns points the baseline lacks into warnings, their
	// baseline gates skipped.
	AllowMissing bool
}

// baselineOf makes the stored runs at path — one run, or a history of
// runs of the scenario in the order they ran (joinHistory) — the baseline
// of experiment e (run --baseline, experiment(baseline=)): their points
// of the experiment of the same name, matched by parameters — or, for
// runs of points of no experiment (a profile or analyze folder, an
// imported GenAI-Perf export), those. It refuses, naming every
// difference, a baseline with no such points and one that measured
// something else (another model, endpoint type, streaming, dataset), as
// `compare` refuses incomparable runs. A point of e's grid the baseline
// lacks is refused too, or with AllowMissing returned as a warning, its
// baseline gates skipped.
//
// The baseline's records are read when a gate asks for a point, one
// point at a time, as the series its gates compare on (e's
// BaselineTrack): never held for the whole run.
func baselineOf(path string, history []*storedrun.Run, e *plan.Experiment, opt BaselineOptions) (*attached, error) {
	a, err := joinHistory(path, history, e)
	if err != nil {
		return nil, err
	}
	byLabel := map[string]*storedrun.Point{}
	for _, p := range a.run.Points {
		byLabel[p.Label()] = p
	}
	if missing := missingPoints(e, byLabel); len(missing) > 0 {
		msg := fmt.Sprintf("baseline %s: experiment %q has no point %s", path, e.Name, strings.Join(missing, ", "))
		if !opt.AllowMissing {
			return nil, fmt.Errorf("%s%s", msg, allowHint(opt))
		}
		a.warnings = append(a.warnings, msg+": their baseline gates are skipped")
	}
	a.against = &runtime.Baseline{Path: path, FailOnInconclusive: opt.FailOnInconclusive, AllowMissing: opt.AllowMissing,
		Runs: lastPointRuns(byLabel, e.BaselineTrack())}
	return a, nil
}

// unfit says why a stored run cannot be e's baseline, to follow its
// name ("baseline DIR" + unfit): it has no point of e, or it measured
// something else; "" when it can.
func unfit(run *storedrun.Run, e *plan.Experiment) string {
	points := run.PointsOf(e.Name)
	if len(points) == 0 {
		return fmt.Sprintf(": no point of experiment %q (it has %s)", e.Name, experiments(run))
	}
	if diffs := describeAgainst(points, e); len(diffs) > 0 {
		return " measured something else: " + strings.Join(diffs, "; ")
	}
	return ""
}

// lastPointRuns reads a baseline point's runs when asked, keeping the
// last point's only: a point's gates ask one after the other. Records
// that cannot be read (Load read them once already, so only a file
// changed since gets here) are the error the gates' verdicts show.
func lastPointRuns(byLabel map[string]*storedrun.Point, track []*metrics.Metric) func(plan.Params, string) ([]metrics.RunData, error) {
	var lastKey string
	var last []metrics.RunData
	return func(params plan.Params, component string) ([]metrics.RunData, error) {
		p, ok := byLabel[params.Label()]
		if !ok {
			return nil, runtime.ErrNoBaselinePoint
		}
		key := p.Label() + "\x00" + component
		if last == nil || key != lastKey {
			runs, err := p.Runs(track, component)
			if err != nil {
				return nil, err
			}
			lastKey, last = key, runs
		}
		return last, nil
	}
}

// experiments names the run's experiments for a message.
func experiments(run *storedrun.Run) string {
	names := run.Experiments()
	if len(names) == 0 {
		return "points of no experiment"
	}
	return "experiments " + strings.Join(names, ", ")
}

// describeAgainst lists how the baseline's points differ from what e
// will measure, in what is known before it runs: model, endpoint type,
// streaming and dataset (an imported export: model and endpoint type).
// Sequence lengths and token counting are only known after; the run's
// comparison with its baseline warns of them.
func describeAgainst(points []*storedrun.Point, e *plan.Experiment) []string {
	want := storedrun.Description{Models: e.Endpoint.ModelNames(), API: string(e.Endpoint.API), Stream: e.Endpoint.Stream}
	if e.Dataset != nil {
		want.Dataset = e.Dataset.String()
	}
	var out []string
	add := func(what, base, cand string) {
		if d := fmt.Sprintf("%s: baseline %s, this run %s", what, base, cand); base != cand && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	for _, p := range points {
		have := p.Desc
		add("model", orNone(strings.Join(have.Models, ", ")), orNone(strings.Join(want.Models, ", ")))
		add("endpoint type", orNone(have.API), orNone(want.API))
		if !have.Imported {
			add("streaming", onOff(have.Stream), onOff(want.Stream))
		}
		if have.Dataset != "" && want.Dataset != "" {
			add("dataset", have.Dataset, want.Dataset)
		}
	}
	return out
}

// missingPoints are the labels of e's grid points the baseline lacks;
// none for an adaptive sweep, whose points are chosen while it runs (a
// point the baseline lacks is then met, and judged, at run time).
func missingPoints(e *plan.Experiment, have map[string]*storedrun.Point) []string {
	if e.Adaptive() || firstBaselineGate(e) == "" {
		return nil
	}
	specs, err := e.Points()
	if err != nil {
		return nil // Validate refused the plan already
	}
	var missing []string
	for _, sp := range specs {
		if _, ok := have[sp.Params.Label()]; !ok && baselineGateApplies(e, sp.Params) {
			missing = append(missing, sp.Params.Label())
		}
	}
	return missing
}

func baselineGateApplies(e *plan.Experiment, p plan.Params) bool {
	return slices.ContainsFunc(e.Gates, func(g metrics.Gate) bool { return g.Baseline && g.Applies(p) })
}

// Baselines are the stored runs a scenario's experiments compare with,
// loaded once each.
type Baselines struct {
	// ByExperiment maps an experiment's name to its baseline run.
	ByExperiment map[string]*storedrun.Run
	// Against maps an experiment's name to what its baseline gates
	// compare with (runtime.Options.Against); absent: none.
	Against map[string]*runtime.Baseline
	// Warnings are what --allow-missing-baseline let through, and the
	// runs of a baseline history left out (joinHistory).
	Warnings []string
	// Notes say, for each experiment whose baseline is a history, how
	// many runs its points are judged on: "baseline of chat: 5 runs in
	// history/ (...)".
	Notes []string

	override string
	opt      BaselineOptions
	load     storedrun.Options
	loaded   map[string][]*storedrun.Run
}

// NewBaselines attaches baselines to experiments one by one (Attach):
// override (run --baseline) when given, else each experiment's own
// baseline path (experiment(baseline=), or the path a stored plan saved).
func NewBaselines(override string, opt BaselineOptions, load storedrun.Options) *Baselines {
	return &Baselines{ByExperiment: map[string]*storedrun.Run{}, Against: map[string]*runtime.Baseline{}, override: override, opt: opt, load: load, loaded: map[string][]*storedrun.Run{}}
}

// Attach loads e's baseline into Against and returns it: the override when given, else
// e's own (a command that overrides it builds e with the override first,
// so the saved plan says what it was compared with). A
// baseline gate with nothing to compare with, and a baseline that cannot
// be read or does not fit, is an input error naming both, unless
// AllowMissing makes it a warning and skips the experiment's baseline
// gates (a branch's first run).
func (b *Baselines) Attach(e *plan.Experiment) (*runtime.Baseline, error) {
	a, err := attach(e, b.override, b.opt, b.loadOnce)
	switch {
	case err != nil && !b.opt.AllowMissing:
		return nil, err
	case err != nil:
		b.Warnings = append(b.Warnings, err.Error()+": its baseline gates are skipped")
	case a != nil:
		b.ByExperiment[e.Name], b.Against[e.Name] = a.run, a.against
		b.Warnings = append(b.Warnings, a.warnings...)
		if a.note != "" {
			b.Notes = append(b.Notes, a.note)
		}
	}
	return b.Against[e.Name], nil
}

// attached is what an experiment's baseline became: the run (one stored
// run, or a history joined point by point) its comparison reads, what
// its gates compare with, the warnings to print and, for a history, the
// note saying how many runs it holds.
type attached struct {
	run      *storedrun.Run
	against  *runtime.Baseline
	warnings []string
	note     string
}

// attach loads e's baseline and what its gates compare with; nil and no
// error when e has no baseline and needs none.
func attach(e *plan.Experiment, override string, opt BaselineOptions, load func(string) ([]*storedrun.Run, error)) (*attached, error) {
	path := cmp.Or(override, e.Baseline)
	if path == "" {
		if g := firstBaselineGate(e); g != "" {
			return nil, failure.Inputf("experiment %q: gate %q compares with a baseline, but none is given: "+
				"set experiment(baseline=) or give --baseline DIR%s", e.Name, g, allowHint(opt))
		}
		return nil, nil
	}
	from := fmt.Sprintf("experiment %q: baseline=", e.Name)
	if override != "" {
		from = fmt.Sprintf("experiment %q: --baseline ", e.Name)
	}
	history, err := load(path)
	if errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("%s: no such folder or file", path)
	}
	if err != nil {
		return nil, failure.Inputf("%s%w%s", from, err, allowHint(opt))
	}
	a, err := baselineOf(path, history, e, opt)
	if err != nil {
		return nil, failure.Inputf("experiment %q: %w", e.Name, err)
	}
	return a, nil
}

// allowHint points at --allow-missing-baseline in an error it would have
// turned into a warning.
func allowHint(opt BaselineOptions) string {
	if opt.AllowMissing {
		return ""
	}
	return " (--allow-missing-baseline skips baseline gates)"
}

// loadOnce loads the stored run at path, or the history of runs a folder
// of them is (storedrun.LoadHistory, as `compare` reads its candidates),
// or gives what was loaded already: their summaries, read once, are what
// every experiment compared with them reads.
func (b *Baselines) loadOnce(path string) ([]*storedrun.Run, error) {
	if h, ok := b.loaded[path]; ok {
		return h, nil
	}
	h, err := storedrun.LoadHistory(path, b.load)
	if err != nil {
		return nil, err
	}
	b.loaded[path] = h
	return h, nil
}

func firstBaselineGate(e *plan.Experiment) string {
	for _, g := range e.Gates {
		if g.Baseline {
			return g.Source
		}
	}
	return ""
}
