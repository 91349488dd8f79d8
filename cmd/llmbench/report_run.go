package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/genaiperf"
	"github.com/llmbench/llmbench/reports/html"
	"github.com/llmbench/llmbench/reports/records"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/transport"
)

// storedPoint is one run of a point as re-rendered from its records file:
// what the sweep-level reports need, rebuilt without sending a request.
type storedPoint struct {
	file string
	meta records.Meta
	run  genaiperf.Run
	out  *runtime.Outcome
}

// root is the folder the point's command wrote its sweep-level files in:
// OUT for `run` (OUT/<experiment>/<point>[/repeatK]/records.parquet), the
// artifact folder for `analyze` (<artifact-dir>/<point>/records.parquet),
// which stores no scenario.
func (p *storedPoint) root() string {
	dir := filepath.Dir(p.file)
	if p.meta.Repeat > 1 {
		dir = filepath.Dir(dir)
	}
	if p.meta.Scenario == "" {
		return filepath.Dir(dir)
	}
	return filepath.Dir(filepath.Dir(dir))
}

// storedExperiment gathers the stored points of one experiment of one run.
type storedExperiment struct {
	root, scenario, name string
	points               []*storedPoint
	// written is when its earliest records file was last written: the
	// experiments of a run ran, and so finished writing, in scenario order.
	written time.Time
}

// storedRun is one run folder's experiments, and its verdicts as the run
// wrote them to gates.json (nil when it has none).
type storedRun struct {
	root, scenario string
	// mixed names a second scenario whose points share the folder: its
	// summary.json and report.html can then only belong to one of them.
	mixed    string
	results  []runtime.ExperimentResult
	verdicts []verdict.Verdict
	gates    map[string][]metrics.Gate
}

// reportSweeps re-renders what a command wrote above its points, from the
// re-rendered points alone: for each experiment of two or more points the
// sweep table and plots, and for each `run` folder at or below the
// report's path (so every one of its points was read) summary.json and
// report.html.
func (c *reportCmd) reportSweeps(e *env, stored []*storedPoint) error {
	var runs []*storedRun
	byRoot := map[string]*storedRun{}
	for _, g := range groupExperiments(stored) {
		r := byRoot[g.root]
		if r == nil {
			var err error
			if r, err = openStoredRun(g.root, g.scenario); err != nil {
				return invalid("%v", err)
			}
			byRoot[g.root] = r
			runs = append(runs, r)
		}
		if g.scenario != r.scenario {
			r.mixed = g.scenario
		}
		res, err := g.result(r.gates[g.name])
		if err != nil {
			return err
		}
		r.results = append(r.results, res)
	}
	for _, r := range runs {
		if err := c.writeRunReports(e, r); err != nil {
			return err
		}
	}
	return nil
}

// groupExperiments groups the points of `run` and `analyze` experiments (a
// `profile` run is a single point of no experiment) by folder, scenario
// and experiment, in the order the experiments ran.
func groupExperiments(stored []*storedPoint) []*storedExperiment {
	type key struct{ root, scenario, name string }
	byKey := map[key]*storedExperiment{}
	var groups []*storedExperiment
	for _, p := range stored {
		if p.meta.Experiment == "" {
			continue
		}
		k := key{p.root(), p.meta.Scenario, p.meta.Experiment}
		g := byKey[k]
		if g == nil {
			g = &storedExperiment{root: k.root, scenario: k.scenario, name: k.name}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.points = append(g.points, p)
		if t := modTime(p.file); g.written.IsZero() || t.Before(g.written) {
			g.written = t
		}
	}
	slices.SortStableFunc(groups, func(a, b *storedExperiment) int { return a.written.Compare(b.written) })
	return groups
}

func modTime(path string) time.Time {
	st, err := os.Stat(path)
	if err != nil {
		return time.Time{}
	}
	return st.ModTime()
}

// openStoredRun reads the verdicts a run left in root, and the gates they
// judged, so the re-rendered points are judged as the run judged them.
func openStoredRun(root, scenario string) (*storedRun, error) {
	vs, err := readVerdicts(filepath.Join(root, "gates.json"))
	if err != nil {
		return nil, err
	}
	gates, err := gatesOf(vs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(root, "gates.json"), err)
	}
	return &storedRun{root: root, scenario: scenario, verdicts: vs, gates: gates}, nil
}

// readVerdicts reads back gates.json as verdict.WriteJSON wrote it; a
// folder without one has no verdicts.
func readVerdicts(path string) ([]verdict.Verdict, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Verdicts []verdict.Verdict `json:"verdicts"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc.Verdicts, nil
}

// gatesOf parses each experiment's gates back from its verdicts, in the
// order they first appear: records do not store the scenario's gates, and
// summary.json reports each point's gates and each gate's knee. check()
// failures are not gates.
func gatesOf(vs []verdict.Verdict) (map[string][]metrics.Gate, error) {
	gates := map[string][]metrics.Gate{}
	seen := map[[2]string]bool{}
	for _, v := range vs {
		k := [2]string{v.Experiment, v.Gate}
		if v.Gate == verdict.CheckGate || seen[k] {
			continue
		}
		seen[k] = true
		g, err := metrics.ParseGate(v.Gate)
		if err != nil {
			return nil, fmt.Errorf("gate %q: %w", v.Gate, err)
		}
		gates[v.Experiment] = append(gates[v.Experiment], g)
	}
	return gates, nil
}

// result rebuilds the experiment's runtime result: its points in load
// order, each with its repeats, repeat statistics and gates, and the
// saturation analysis a grid sweep gets.
func (g *storedExperiment) result(gates []metrics.Gate) (runtime.ExperimentResult, error) {
	slices.SortStableFunc(g.points, func(a, b *storedPoint) int { return cmp.Compare(a.meta.Repeat, b.meta.Repeat) })
	var labels []string
	runs := map[string][]*storedPoint{}
	for _, p := range g.points {
		if runs[p.meta.Point] == nil {
			labels = append(labels, p.meta.Point)
		}
		runs[p.meta.Point] = append(runs[p.meta.Point], p)
	}
	exp := g.experiment(gates)
	res := runtime.ExperimentResult{Experiment: exp}
	for _, label := range labels {
		pt, err := pointResult(exp, runs[label])
		if err != nil {
			return res, err
		}
		res.Points = append(res.Points, pt)
		exp.Repeats = max(exp.Repeats, len(pt.Repeats))
	}
	slices.SortStableFunc(res.Points, func(a, b runtime.PointResult) int { return a.Params.Compare(b.Params) })
	exp.Load = loadOf(res.Points[0].Params, &g.points[0].run)
	res.Capacity = runtime.AnalyzeCapacity(&res, nil)
	return res, nil
}

// experiment is the experiment as far as its stored run description tells
// it: what report.html lists and what its gates are judged with. Its sweep
// is not stored; the reports find the load parameter from the points.
func (g *storedExperiment) experiment(gates []metrics.Gate) *runtime.Experiment {
	p := g.points[0]
	run := &p.run
	ep := runtime.Endpoint{URL: p.meta.EndpointURL, API: transport.API(run.EndpointType), Stream: run.Streaming,
		Model: firstModel(run), Tokenizer: run.Tokenizer}
	if len(run.Models) > 1 {
		ep.Models, ep.ModelSelection = run.Models, run.ModelSelection
	}
	if run.Endpoint != "" {
		ep.Path = "/" + run.Endpoint
	}
	return &runtime.Experiment{Name: g.name, Endpoint: ep, Requests: run.RequestCount,
		Duration: time.Duration(run.MeasurementInterval) * time.Millisecond, Warmup: run.WarmupRequestCount,
		Seed: uint64(run.RandomSeed), Goodput: p.out.Goodput, Gates: gates}
}

// pointResult is one point from the runs of its repeats, in repeat order,
// judged as runtime judges a point: repeat statistics when repeated, each
// gate on the mean over the repeats.
func pointResult(exp *runtime.Experiment, runs []*storedPoint) (runtime.PointResult, error) {
	first := runs[0]
	params, err := pointParams(first.meta.Point, &first.run)
	if err != nil {
		return runtime.PointResult{}, invalid("%s: %v", first.file, err)
	}
	pr := runtime.PointResult{Params: params}
	summaries := make([]*metrics.Summary, len(runs))
	for i, r := range runs {
		pr.Repeats = append(pr.Repeats, r.out)
		summaries[i] = &r.out.Summary
	}
	pr.Outcome = pr.Repeats[0]
	if len(pr.Repeats) > 1 {
		pr.RepeatStats = metrics.HeadlineRepeats(summaries)
	}
	pr.Gates = runtime.EvaluateGates(exp, params, pr.Repeats...)
	return pr, nil
}

// labelParams maps the names in point labels to sweep parameters: run
// names a point by its parameters ("concurrency8-input_tokens512"),
// analyze by GenAI-Perf's objective ("input_sequence_length512").
var labelParams = map[string]string{
	"concurrency": metrics.ParamConcurrency, "request_rate": metrics.ParamRate,
	"replay_speed": metrics.ParamReplaySpeed, "input_tokens": metrics.ParamInputTokens,
	"output_tokens": metrics.ParamOutputTokens, "input_sequence_length": metrics.ParamInputTokens,
	"output_sequence_length": metrics.ParamOutputTokens,
}

// pointParams reads a point's parameters back from its label, which
// holds every swept value (the run description keeps the load only, and
// not a replay's speed), then takes a load the label does not name (an
// analyze token sweep's) from the run's stimulus, as analyze sets it.
func pointParams(label string, run *genaiperf.Run) (runtime.Params, error) {
	params := runtime.Params{}
	for part := range strings.SplitSeq(label, "-") {
		i := strings.IndexFunc(part, func(r rune) bool { return r >= '0' && r <= '9' })
		if i <= 0 {
			return nil, fmt.Errorf("point label %q: %q is not a parameter and its value", label, part)
		}
		name, ok := labelParams[part[:i]]
		v, err := strconv.ParseFloat(part[i:], 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("point label %q: %q is not a parameter and its value", label, part)
		}
		params[name] = v
	}
	_, c := params[metrics.ParamConcurrency]
	_, r := params[metrics.ParamRate]
	_, s := params[metrics.ParamReplaySpeed]
	switch {
	case c || r || s:
	case run.Stimulus.Mode() == "request_rate":
		params[metrics.ParamRate] = run.Stimulus.RequestRate
	default:
		params[metrics.ParamConcurrency] = float64(max(run.Stimulus.Concurrency, 1))
	}
	return params, nil
}

// loadOf is a point's load as a scenario writes it; the lowest point's
// stands for the experiment's base load in report.html.
func loadOf(params runtime.Params, run *genaiperf.Run) runtime.Load {
	return runtime.Load{Concurrency: int(params[metrics.ParamConcurrency]), Rate: params[metrics.ParamRate],
		ReplaySpeed: params[metrics.ParamReplaySpeed], Arrival: runtime.Arrival(run.RequestDistribution)}
}

// writeRunReports prints and redraws each sweep of a folder and rewrites
// a `run` folder's summary.json and report.html, when every point of the
// folder was read (it is at or below the report's path) and they are the
// files of one scenario.
func (c *reportCmd) writeRunReports(e *env, r *storedRun) error {
	rr := artifacts.RunReport{Dir: r.root, Config: r.config(), Results: r.results, Plots: true,
		Verdicts: &verdict.Report{Scenario: r.scenario, Verdicts: r.verdicts}}
	sweeps := rr.WriteSweeps(e.stdout, e.stderr)
	if r.scenario == "" || !runFolder(r.root) || !within(c.Path, r.root) {
		return nil
	}
	if r.mixed != "" {
		fmt.Fprintf(e.stderr, "llmbench: %s holds the points of scenarios %q and %q: its summary.json and report.html are left as they are\n",
			r.root, r.scenario, r.mixed)
		return nil
	}
	if err := rr.WriteSummary(); err != nil {
		return runFailed("%v", err)
	}
	if err := rr.WriteHTML(sweeps); err != nil {
		return runFailed("%v", err)
	}
	fmt.Fprintf(e.stdout, "\nSummary: %s\nReport: %s\n", filepath.Join(r.root, artifacts.SummaryFile), filepath.Join(r.root, artifacts.HTMLFile))
	return nil
}

// runFolder reports whether dir holds what `run` writes beside its
// experiments, which `analyze` and `profile` folders do not both have.
func runFolder(dir string) bool {
	for _, name := range []string{"gates.json", summaryName} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// within reports whether dir is path or a folder below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(path, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// config lists how the report was produced; the scenario file itself is
// not stored with the records, so it is named, not shown.
func (r *storedRun) config() []html.KV {
	names := make([]string, len(r.results))
	for i := range r.results {
		names[i] = r.results[i].Experiment.Name
	}
	return []html.KV{
		{Key: "scenario", Value: r.scenario},
		{Key: "experiments", Value: strings.Join(names, ", ")},
		{Key: "llmbench", Value: version + " (llmbench report, from stored records)"},
	}
}

// countingOf reads back a run's token counting as runtime.Counting.String
// wrote it: "usage", or "usage (3 requests without usage counted by
// chunks)".
func countingOf(s string) runtime.Counting {
	mode, rest, _ := strings.Cut(s, " (")
	c := runtime.Counting{Mode: runtime.CountMode(mode)}
	fmt.Sscanf(rest, "%d", &c.Fallbacks)
	return c
}
