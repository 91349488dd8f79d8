package storedrun

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// GatesFile is where a run writes its verdicts (verdict.WriteJSON).
const GatesFile = "gates.json"

// Measured is a stored repeat with the outcome its records reduced to:
// what an experiment is rebuilt from.
type Measured struct {
	*Repeat
	Out *runtime.Outcome
}

// Root is the folder the repeat's command wrote its run-level files in:
// OUT for `run` (OUT/<experiment>/<point>[/repeatK]/records.parquet), the
// artifact folder for `analyze` (<artifact-dir>/<point>/records.parquet),
// which stores no scenario.
func (r *Repeat) Root() string {
	dir := r.pointDir()
	if r.Side() != "" {
		dir = filepath.Dir(dir)
	}
	if r.Meta.Scenario == "" {
		return filepath.Dir(dir)
	}
	return filepath.Dir(filepath.Dir(dir))
}

// pointDir is the point's folder: the repeat's own for the first
// repeat, its parent for repeatK.
func (r *Repeat) pointDir() string {
	if r.Meta.Repeat > 1 {
		return filepath.Dir(r.Dir())
	}
	return r.Dir()
}

// Side is the side of an interleaved A/B point the repeat is a round of:
// "a" or "b", the folder the run wrote it in
// (OUT/<experiment>/<point>/<side>/[repeatK/]); "" for any other run.
func (r *Repeat) Side() string {
	if r.Plan == nil || r.Plan.Plan.AB == nil {
		return ""
	}
	return filepath.Base(r.pointDir())
}

// started orders a stored point in its run: when it started for a point
// merged from shards (merge writes its files in that order, but file
// times may be too coarse to tell them apart), else when its records
// file was written.
func (r *Repeat) started() time.Time {
	if r.Plan != nil && len(r.Plan.Shards) > 0 {
		first := r.Plan.Shards[0].Started
		for _, s := range r.Plan.Shards[1:] {
			first = min(first, s.Started)
		}
		return time.Unix(0, first)
	}
	st, err := os.Stat(r.Path)
	if err != nil {
		return time.Time{}
	}
	return st.ModTime()
}

// Experiment gathers the stored points of one experiment of one run.
type Experiment struct {
	Root, Scenario, Name string
	Points               []Measured
	// written is when its earliest records file was last written: the
	// experiments of a run ran, and so finished writing, in scenario order.
	written time.Time
}

// GroupExperiments groups the points of `run` and `analyze` experiments
// (a `profile` run is a single point of no experiment) by folder,
// scenario and experiment, in the order the experiments ran.
func GroupExperiments(stored []Measured) []*Experiment {
	type key struct{ root, scenario, name string }
	byKey := map[key]*Experiment{}
	var groups []*Experiment
	for _, p := range stored {
		if p.Meta.Experiment == "" {
			continue
		}
		k := key{p.Root(), p.Meta.Scenario, p.Meta.Experiment}
		g := byKey[k]
		if g == nil {
			g = &Experiment{Root: k.root, Scenario: k.scenario, Name: k.name}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.Points = append(g.Points, p)
		if t := p.started(); g.written.IsZero() || t.Before(g.written) {
			g.written = t
		}
	}
	slices.SortStableFunc(groups, func(a, b *Experiment) int { return a.written.Compare(b.written) })
	return groups
}

// Legacy reports whether a point of the experiment was written before
// points saved their plan (schema version 1): it is then rebuilt from
// its run description and the gates of gates.json, and its verdicts are
// the run's, not judged again.
func (g *Experiment) Legacy() bool {
	return slices.ContainsFunc(g.Points, func(p Measured) bool { return p.Plan == nil })
}

// Rebuild reads the experiment back into the ExperimentResult the run
// produced: the plan from the saved records (gates and sweep as
// written), the points in run order with their repeats, each judged as
// the runtime judges a point, and the capacity analysed by the same
// function, an adaptive sweep's decisions replayed from the points. A
// Legacy experiment takes its gates from v1Gates (GatesOf of its run's
// gates.json). attach, when not nil, gives the baseline the rebuilt
// experiment's points are judged against (merge's).
func (g *Experiment) Rebuild(attach func(*plan.Experiment) (*runtime.Baseline, error), v1Gates map[string][]metrics.Gate) (runtime.ExperimentResult, error) {
	if g.Legacy() {
		return g.rebuildV1(v1Gates[g.Name])
	}
	points := g.Points
	if a, b, ok := splitSides(points); ok {
		// An A/B run's verdicts are side B's, judged paired against side
		// A's rounds (runtime/ab), whatever baseline a caller attaches.
		// Only the leading rounds both sides hold are pairs (an
		// interrupted run is judged on the pairs it has, as the run did).
		rounds, paired := roundsOf(a), roundsOf(b)
		for label, outs := range rounds {
			rounds[label] = outs[:min(len(outs), len(paired[label]))]
		}
		points = slices.DeleteFunc(b, func(p Measured) bool {
			return p.Plan.Point.Repeat > len(rounds[p.Plan.Point.Params.Label()])
		})
		attach = pairedAgainst(rounds, a[0].Plan.Plan.CostPerHour)
	}
	res, err := rebuild(points, attach)
	if err != nil {
		return res, failure.Inputf("%s: %w", g.Points[0].Path, err)
	}
	return res, nil
}

// rebuild is Rebuild of points that saved their plan.
func rebuild(runs []Measured, attach func(*plan.Experiment) (*runtime.Baseline, error)) (runtime.ExperimentResult, error) {
	if len(runs) == 0 {
		return runtime.ExperimentResult{}, fmt.Errorf("no stored runs")
	}
	// A point is its place in run order and its parameters: two sweeps
	// written into one folder (analyze's shared artifact dir) reuse places.
	same := func(a, b Measured) bool {
		return a.Plan.Point.Index == b.Plan.Point.Index && a.Plan.Point.Params.Label() == b.Plan.Point.Params.Label()
	}
	runs = slices.Clone(runs)
	slices.SortStableFunc(runs, func(a, b Measured) int {
		return cmp.Or(cmp.Compare(a.Plan.Point.Index, b.Plan.Point.Index),
			strings.Compare(a.Plan.Point.Params.Label(), b.Plan.Point.Params.Label()),
			cmp.Compare(a.Plan.Point.Repeat, b.Plan.Point.Repeat))
	})
	exp := new(plan.Experiment)
	*exp = runs[0].Plan.Plan // a copy: the result holds it
	var against *runtime.Baseline
	if attach != nil {
		var err error
		if against, err = attach(exp); err != nil {
			return runtime.ExperimentResult{}, err
		}
	}
	res := runtime.ExperimentResult{Experiment: exp}
	for start := 0; start < len(runs); {
		end := start + 1
		for end < len(runs) && same(runs[end], runs[start]) {
			end++
		}
		repeats := make([]*runtime.Outcome, 0, end-start)
		for _, r := range runs[start:end] {
			repeats = append(repeats, r.Out)
		}
		res.Points = append(res.Points, runtime.NewPointResult(exp, against, runs[start].Plan.Point.Params, repeats))
		start = end
	}
	res.Capacity = runtime.AnalyzeCapacity(&res, runtime.ReplayDecisions(exp, res.Points))
	return res, nil
}

// splitSides splits an interleaved A/B experiment's rounds by side; ok
// is false for any other experiment.
func splitSides(points []Measured) (a, b []Measured, ok bool) {
	for _, p := range points {
		switch p.Side() {
		case engine.SideA.String():
			a = append(a, p)
		case engine.SideB.String():
			b = append(b, p)
		default:
			return nil, nil, false
		}
	}
	return a, b, len(a) > 0 && len(b) > 0
}

// roundsOf are a side's leading rounds at each point (by label), in
// round order, up to the first one missing.
func roundsOf(a []Measured) map[string][]*runtime.Outcome {
	rounds := map[string][]*runtime.Outcome{}
	for _, p := range a {
		label := p.Plan.Point.Params.Label()
		k := p.Plan.Point.Repeat - 1
		for len(rounds[label]) <= k {
			rounds[label] = append(rounds[label], nil)
		}
		rounds[label][k] = p.Out
	}
	for label, outs := range rounds {
		if n := slices.Index(outs, nil); n >= 0 {
			rounds[label] = outs[:n]
		}
	}
	return rounds
}

// pairedAgainst is the baseline side B's rounds are judged against, as
// the run judged them: at each point, side A's rounds paired with side
// B's by round (runtime.PairedBaseline).
func pairedAgainst(rounds map[string][]*runtime.Outcome, costPerHour float64) func(*plan.Experiment) (*runtime.Baseline, error) {
	return func(e *plan.Experiment) (*runtime.Baseline, error) {
		return &runtime.Baseline{Path: "ab=" + plan.RedactURL(e.AB.Baseline.URL), Paired: true,
			Runs: func(params plan.Params, component string) ([]metrics.RunData, error) {
				outs := rounds[params.Label()]
				if len(outs) == 0 {
					return nil, runtime.ErrNoBaselinePoint
				}
				return runtime.RoundRuns(outs, component, costPerHour), nil
			}}, nil
	}
}

// rebuildV1 rebuilds a Legacy experiment: its points in load order, each
// with its repeats, repeat statistics and gates, and the saturation
// analysis a grid sweep gets.
func (g *Experiment) rebuildV1(gates []metrics.Gate) (runtime.ExperimentResult, error) {
	points := slices.Clone(g.Points)
	slices.SortStableFunc(points, func(a, b Measured) int { return cmp.Compare(a.Meta.Repeat, b.Meta.Repeat) })
	var labels []string
	runs := map[string][]Measured{}
	for _, p := range points {
		if runs[p.Meta.Point] == nil {
			labels = append(labels, p.Meta.Point)
		}
		runs[p.Meta.Point] = append(runs[p.Meta.Point], p)
	}
	exp, err := v1Experiment(g.Name, points[0].Repeat, gates)
	if err != nil {
		return runtime.ExperimentResult{}, failure.Inputf("%s: %w", points[0].Path, err)
	}
	res := runtime.ExperimentResult{Experiment: exp}
	for _, label := range labels {
		pt, err := v1Point(exp, runs[label])
		if err != nil {
			return res, err
		}
		res.Points = append(res.Points, pt)
		exp.Repeats = max(exp.Repeats, len(pt.Repeats))
	}
	slices.SortStableFunc(res.Points, func(a, b runtime.PointResult) int { return a.Params.Compare(b.Params) })
	exp.Load = v1Load(res.Points[0].Params, &points[0].Described)
	res.Capacity = runtime.AnalyzeCapacity(&res, nil)
	return res, nil
}

// v1Point is one point from the runs of its repeats, in repeat order,
// judged as runtime judges a point (runtime.NewPointResult).
func v1Point(exp *plan.Experiment, runs []Measured) (runtime.PointResult, error) {
	first := runs[0]
	params, err := pointParams(first.Meta.Point, &first.Described)
	if err != nil {
		return runtime.PointResult{}, failure.Inputf("%s: %w", first.Path, err)
	}
	repeats := make([]*runtime.Outcome, len(runs))
	for i, r := range runs {
		repeats[i] = r.Out
	}
	return runtime.NewPointResult(exp, nil, params, repeats), nil
}

// Verdicts is gates.json as verdict.WriteJSON wrote it.
type Verdicts struct {
	Verdicts []verdict.Verdict  `json:"verdicts"`
	Check    verdict.CheckState `json:"check"`
	Partial  bool               `json:"partial"`
}

// ReadVerdicts reads back the gates.json a run wrote in root; a folder
// without one has no verdicts.
func ReadVerdicts(root string) (Verdicts, error) {
	var doc Verdicts
	path := filepath.Join(root, GatesFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return doc, nil
	}
	if err != nil {
		return doc, err
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return doc, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

// GatesOf parses each experiment's gates back from its verdicts, in the
// order they first appear: version 1 records do not store the scenario's
// gates. check() failures are not gates.
func GatesOf(vs []verdict.Verdict) (map[string][]metrics.Gate, error) {
	gates := map[string][]metrics.Gate{}
	seen := map[[2]string]bool{}
	for _, v := range vs {
		k := [2]string{v.Experiment, v.Gate}
		if v.Gate == verdict.CheckGate || seen[k] {
			continue
		}
		seen[k] = true
		g, err := metrics.ParseStoredGate(v.Gate)
		if err != nil {
			return nil, fmt.Errorf("gate %q: %w", v.Gate, err)
		}
		gates[v.Experiment] = append(gates[v.Experiment], g)
	}
	return gates, nil
}
