package artifacts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/html"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/failure"
)

// storedRun is one run folder's experiments as `report` rebuilt them, and
// the verdicts the run wrote to gates.json (empty when it has none).
type storedRun struct {
	root, scenario string
	// mixed names a second scenario whose points share the folder: its
	// summary.json and report.html can then only belong to one of them.
	mixed   string
	results []runtime.ExperimentResult
	written storedrun.Verdicts
	// gates are the gates of version 1 points, read back from gates.json;
	// legacy is set when an experiment was rebuilt from them.
	gates  map[string][]metrics.Gate
	legacy bool
	// partial is set when a point was interrupted or recovered from a
	// killed run, which wrote no gates.json to say so.
	partial bool
}

// verdicts judges the rebuilt points as the run judged them; check()'s
// verdicts and state, which need the scenario, are taken from gates.json,
// as are all verdicts of a folder with version 1 points.
func (r *storedRun) verdicts() *verdict.Report {
	rep := &verdict.Report{Scenario: r.scenario, Verdicts: r.written.Verdicts, Check: r.written.Check,
		Partial: r.written.Partial || r.partial}
	if rep.Check == "" { // killed before it could judge check()
		rep.Check = verdict.CheckNotRun
	}
	if r.legacy {
		return rep
	}
	rep.Verdicts = r.keepBaselineVerdicts(verdict.Collect(r.results))
	for _, v := range r.written.Verdicts {
		if v.Gate == verdict.CheckGate {
			rep.Verdicts = append(rep.Verdicts, v)
		}
	}
	return rep
}

// keepBaselineVerdicts puts back the verdicts of baseline gates as the
// run wrote them, in the verdicts and in the points' gate results the
// tables mark: they were judged against a baseline that a rebuild does
// not have (it may be gone), while absolute gates are judged again.
func (r *storedRun) keepBaselineVerdicts(vs []verdict.Verdict) []verdict.Verdict {
	key := func(exp, point, gate string) string { return exp + "\x00" + point + "\x00" + gate }
	written := map[string]verdict.Verdict{}
	for _, v := range r.written.Verdicts {
		written[key(v.Experiment, v.Point, v.Gate)] = v
	}
	for _, res := range r.results {
		for _, p := range res.Points {
			for j := range p.Gates {
				g := &p.Gates[j]
				if w, ok := written[key(res.Experiment.Name, p.Params.Label(), g.Gate.Source)]; ok && g.Gate.Baseline {
					g.Passed, g.Skipped = w.Passed, w.Skipped
				}
			}
		}
	}
	for i, v := range vs {
		if w, ok := written[key(v.Experiment, v.Point, v.Gate)]; ok && v.Skipped != "" {
			vs[i] = w
		}
	}
	return vs
}

// reportSweeps re-renders what a command wrote above its points, from the
// re-rendered points alone: for each experiment of two or more points the
// sweep table and plots, and for each `run` folder at or below the
// report's path (so every one of its points was read) summary.json and
// report.html. lost are records files a crash left nothing of: their runs
// are partial. drawn are the point plots the re-render drew, which
// report.html embeds.
func reportSweeps(stdout, stderr io.Writer, path, version string, stored []storedrun.Measured, lost []string, drawn *PointPlots) error {
	var runs []*storedRun
	byRoot := map[string]*storedRun{}
	for _, g := range storedrun.GroupExperiments(stored) {
		r := byRoot[g.Root]
		if r == nil {
			var err error
			if r, err = openStoredRun(g.Root, g.Scenario); err != nil {
				return failure.Inputf("%w", err)
			}
			byRoot[g.Root] = r
			runs = append(runs, r)
		}
		if g.Scenario != r.scenario {
			r.mixed = g.Scenario
		}
		for _, p := range g.Points {
			r.partial = r.partial || p.Out.Interrupted
		}
		for _, file := range lost { // a point a crash left nothing of
			r.partial = r.partial || within(r.root, file)
		}
		res, err := g.Rebuild(nil, r.gates)
		if err != nil {
			return err
		}
		r.legacy = r.legacy || g.Legacy()
		r.results = append(r.results, res)
	}
	for _, r := range runs {
		if err := writeRunReports(stdout, stderr, path, version, r, drawn); err != nil {
			return err
		}
	}
	return nil
}

// openStoredRun reads the verdicts a run left in root, and the gates they
// judged, so the re-rendered points are judged as the run judged them.
func openStoredRun(root, scenario string) (*storedRun, error) {
	written, err := storedrun.ReadVerdicts(root)
	if err != nil {
		return nil, err
	}
	gates, err := storedrun.GatesOf(written.Verdicts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(root, gatesFile), err)
	}
	return &storedRun{root: root, scenario: scenario, written: written, gates: gates}, nil
}

// finishedSummary tells whether path is the summary.json of a run that
// finished (not partial), which a partial rebuild must not replace.
func finishedSummary(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var doc struct {
		Partial *bool `json:"partial"`
	}
	return json.Unmarshal(b, &doc) == nil && doc.Partial != nil && !*doc.Partial
}

// writeRunReports prints and redraws each sweep of a folder and rewrites
// a `run` folder's summary.json and report.html, when every point of the
// folder was read (it is at or below the report's path) and they are the
// files of one scenario.
func writeRunReports(stdout, stderr io.Writer, path, version string, r *storedRun, drawn *PointPlots) error {
	rr := RunReport{Dir: r.root, Config: r.config(version), Results: r.results, Plots: true, Drawn: drawn, Verdicts: r.verdicts()}
	if cmp, err := readComparison(filepath.Join(r.root, CompareFile)); err != nil {
		fmt.Fprintf(stderr, "llmbench: %v (the report shows no comparison)\n", err)
	} else {
		rr.StoredComparison = cmp
	}
	sweeps := rr.WriteSweeps(stdout, stderr)
	if r.scenario == "" || !within(path, r.root) { // a scenario's points are a run's
		return nil
	}
	if r.mixed != "" {
		fmt.Fprintf(stderr, "llmbench: %s holds the points of scenarios %q and %q: its summary.json and report.html are left as they are\n",
			r.root, r.scenario, r.mixed)
		return nil
	}
	if r.partial && finishedSummary(filepath.Join(r.root, SummaryFile)) {
		fmt.Fprintf(stderr, "llmbench: %s: summary.json and report.html of the finished run are left as they are: rebuilt from records recovered after a crash or damage, they would hold less\n",
			r.root)
		return nil
	}
	if err := rr.WriteSummary(); err != nil {
		return failure.Runf("%w", err)
	}
	if err := rr.WriteHTML(sweeps); err != nil {
		return failure.Runf("%w", err)
	}
	fmt.Fprintf(stdout, "\nSummary: %s\nReport: %s\n", filepath.Join(r.root, SummaryFile), filepath.Join(r.root, htmlFile))
	return nil
}

// within reports whether dir is path or a folder below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(path, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// config lists how the report was produced; the scenario file itself is
// not stored with the records, so it is named, not shown.
func (r *storedRun) config(version string) []html.KV {
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

// readComparison reads a run's compare.json; nil when it has none.
func readComparison(path string) (*comparison.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cmp, err := comparison.ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cmp, nil
}
