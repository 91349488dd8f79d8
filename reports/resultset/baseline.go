package resultset

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
)

// BaselineOptions are the command line's say over baseline gates.
type BaselineOptions struct {
	// FailOnInconclusive fails a baseline gate that cannot tell.
	FailOnInconclusive bool
	// AllowMissing turns points the baseline lacks into warnings, their
	// baseline gates skipped.
	AllowMissing bool
}

// Baseline makes the set the baseline of experiment e (run --baseline,
// experiment(baseline=)): the set's points of the experiment of the same
// name, matched by parameters — or, for a set of points of no experiment
// (a profile or analyze folder, an imported GenAI-Perf export), those.
// It refuses, naming every difference, a set with no such points and one
// that measured something else (another model, endpoint type, streaming,
// dataset), as `compare` refuses incomparable sets. A point of e's grid
// the baseline lacks is refused too, or with AllowMissing returned as a
// warning, its baseline gates skipped.
func (s *Set) Baseline(e *runtime.Experiment, opt BaselineOptions) (*runtime.Baseline, []string, error) {
	points := s.pointsOf(e.Name)
	if len(points) == 0 {
		return nil, nil, fmt.Errorf("baseline %s: no point of experiment %q (it has %s)", s.Path, e.Name, s.experiments())
	}
	if diffs := describeAgainst(points, e); len(diffs) > 0 {
		return nil, nil, fmt.Errorf("baseline %s measured something else: %s", s.Path, strings.Join(diffs, "; "))
	}
	byLabel := map[string]*Point{}
	for _, p := range points {
		byLabel[p.Label()] = p
	}
	var warnings []string
	if missing := missingPoints(e, byLabel); len(missing) > 0 {
		msg := fmt.Sprintf("baseline %s: experiment %q has no point %s", s.Path, e.Name, strings.Join(missing, ", "))
		if !opt.AllowMissing {
			return nil, nil, fmt.Errorf("%s%s", msg, allowHint(opt))
		}
		warnings = append(warnings, msg+": their baseline gates are skipped")
	}
	b := &runtime.Baseline{Path: s.Path, FailOnInconclusive: opt.FailOnInconclusive, AllowMissing: opt.AllowMissing,
		Runs: func(params runtime.Params, component string) ([]metrics.RunData, bool) {
			p, ok := byLabel[params.Label()]
			if !ok {
				return nil, false
			}
			if component == "" {
				return p.Runs(), true
			}
			return p.ComponentRuns(component), true
		}}
	return b, warnings, nil
}

// pointsOf are the set's points of the named experiment, or every point
// when the set's points belong to no experiment.
func (s *Set) pointsOf(experiment string) []*Point {
	var named, none []*Point
	for _, p := range s.Points {
		switch p.Experiment {
		case experiment:
			named = append(named, p)
		case "":
			none = append(none, p)
		}
	}
	if len(named) > 0 || len(none) < len(s.Points) {
		return named
	}
	return none
}

// experiments names the set's experiments for a message.
func (s *Set) experiments() string {
	names := s.Experiments()
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
func describeAgainst(points []*Point, e *runtime.Experiment) []string {
	want := Description{Models: e.Endpoint.ModelNames(), API: string(e.Endpoint.API), Stream: e.Endpoint.Stream}
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
func missingPoints(e *runtime.Experiment, have map[string]*Point) []string {
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

func baselineGateApplies(e *runtime.Experiment, p runtime.Params) bool {
	return slices.ContainsFunc(e.Gates, func(g metrics.Gate) bool { return g.Baseline && g.Applies(p) })
}

// ComponentRuns are the point's repeats as a comparison reads them for
// one dataset component: each repeat's records of that component and
// their summary.
func (p *Point) ComponentRuns(component string) []metrics.RunData {
	out := make([]metrics.RunData, len(p.Repeats))
	for i, r := range p.Repeats {
		var recs []metrics.Record
		for _, rec := range r.Records {
			if rec.Component == component {
				recs = append(recs, rec)
			}
		}
		s := metrics.Summarize(recs, metrics.Options{Goodput: p.Goodput})
		out[i] = metrics.RunData{Summary: &s, Records: recs, CostPerHour: p.CostPerHour}
	}
	return out
}

// Baselines are the result sets a scenario's experiments compare with,
// loaded once each.
type Baselines struct {
	// ByExperiment maps an experiment's name to its baseline set.
	ByExperiment map[string]*Set
	// Warnings are what --allow-missing-baseline let through.
	Warnings []string

	override string
	opt      BaselineOptions
	load     Options
	loaded   map[string]*Set
}

// NewBaselines attaches baselines to experiments one by one (Attach):
// override (run --baseline) when given, else each experiment's own
// baseline path (experiment(baseline=), or the path a stored plan saved).
func NewBaselines(override string, opt BaselineOptions, load Options) *Baselines {
	return &Baselines{ByExperiment: map[string]*Set{}, override: override, opt: opt, load: load, loaded: map[string]*Set{}}
}

// Attach loads e's baseline and sets its Against, recording the path in
// its Baseline so the saved plan says what it was compared with. A
// baseline gate with nothing to compare with, and a baseline that cannot
// be read or does not fit, is an input error naming both, unless
// AllowMissing makes it a warning and skips the experiment's baseline
// gates (a branch's first run).
func (b *Baselines) Attach(e *runtime.Experiment) error {
	if b.override != "" {
		e.Baseline = b.override
	}
	set, warns, err := attach(e, b.override != "", b.opt, func(path string) (*Set, error) { return loadOnce(b.loaded, path, b.load) })
	switch {
	case err != nil && !b.opt.AllowMissing:
		return err
	case err != nil:
		warns = append(warns, err.Error()+": its baseline gates are skipped")
	case set != nil:
		b.ByExperiment[e.Name] = set
	}
	b.Warnings = append(b.Warnings, warns...)
	return nil
}

// attach loads e's baseline and sets e.Against; a nil set and no error
// when e has no baseline and needs none.
func attach(e *runtime.Experiment, fromFlag bool, opt BaselineOptions, load func(string) (*Set, error)) (*Set, []string, error) {
	if e.Baseline == "" {
		if g := firstBaselineGate(e); g != "" {
			return nil, nil, failure.Inputf("experiment %q: gate %q compares with a baseline, but none is given: "+
				"set experiment(baseline=) or give --baseline DIR%s", e.Name, g, allowHint(opt))
		}
		return nil, nil, nil
	}
	from := fmt.Sprintf("experiment %q: baseline=", e.Name)
	if fromFlag {
		from = fmt.Sprintf("experiment %q: --baseline ", e.Name)
	}
	set, err := load(e.Baseline)
	if errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("%s: no such folder or file", e.Baseline)
	}
	if err != nil {
		return nil, nil, failure.Inputf("%s%w%s", from, err, allowHint(opt))
	}
	b, warns, err := set.Baseline(e, opt)
	if err != nil {
		return nil, nil, failure.Inputf("experiment %q: %w", e.Name, err)
	}
	e.Against = b
	return set, warns, nil
}

// allowHint points at --allow-missing-baseline in an error it would have
// turned into a warning.
func allowHint(opt BaselineOptions) string {
	if opt.AllowMissing {
		return ""
	}
	return " (--allow-missing-baseline skips baseline gates)"
}

func loadOnce(loaded map[string]*Set, path string, load Options) (*Set, error) {
	if s, ok := loaded[path]; ok {
		return s, nil
	}
	s, err := Load(path, load)
	if err != nil {
		return nil, err
	}
	loaded[path] = s
	return s, nil
}

func firstBaselineGate(e *runtime.Experiment) string {
	for _, g := range e.Gates {
		if g.Baseline {
			return g.Source
		}
	}
	return ""
}

// HasComponent reports whether any repeat of the point sent requests of
// the dataset component.
func (p *Point) HasComponent(name string) bool {
	return slices.Contains(p.componentNames(), name)
}

// ComponentNames lists the point's dataset components for a message.
func (p *Point) ComponentNames() string {
	names := p.componentNames()
	if len(names) == 0 {
		return "none: its dataset is not a mix()"
	}
	return strings.Join(names, ", ")
}

func (p *Point) componentNames() []string {
	var names []string
	for _, r := range p.Repeats {
		for i := range r.Records {
			if c := r.Records[i].Component; c != "" && !slices.Contains(names, c) {
				names = append(names, c)
			}
		}
	}
	slices.Sort(names)
	return names
}
