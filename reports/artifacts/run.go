package artifacts

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/html"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/sweep"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/engine"
	"github.com/llmbench/llmbench/runtime/plan"
)

// RunReport is what a scenario run leaves in its output folder beside
// the point folders, and what `llmbench report` rebuilds of it.
type RunReport struct {
	// Dir is the run's output folder (OUT).
	Dir string
	// File is the scenario file; Config the page's configuration list.
	File   string
	Config []html.KV
	// Results are the experiments in run order, each with its Capacity.
	Results []runtime.ExperimentResult
	// Verdicts are the gates judged and check()'s outcome.
	Verdicts *verdict.Report
	// Plots renders the sweep plots (once: written to Dir and embedded)
	// and embeds the point plots: those in Drawn as drawn, the others
	// (drawn by an earlier run) from their files.
	Plots bool
	Drawn *PointPlots
	// JUnit and Markdown, when set, are where those verdict files go.
	JUnit, Markdown string
	// Comparison is the run compared with its experiments' baselines
	// (compare.json, a table and a section of report.html); nil without.
	Comparison *comparison.Report
	// StoredComparison is the compare.json of a run rebuilt by `llmbench
	// report`, shown when Comparison is nil: the baseline it was compared
	// with may be gone.
	StoredComparison *comparison.File
}

// Write prints each sweep's table and the gate list to stdout and writes
// the run's files: the sweep plots, gates.json, summary.json, report.html,
// and JUnit and Markdown when asked. A sweep plot that cannot be drawn is
// reported on stderr and left out; one drawn but not written is returned
// once every other file is written, as is any other failure.
func (r *RunReport) Write(stdout, stderr io.Writer) error {
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return err
	}
	sweeps := r.WriteSweeps(stdout, stderr)
	fmt.Fprintln(stdout)
	if r.Comparison != nil {
		fmt.Fprintln(stdout, "== comparison with the baseline ==")
		if err := comparison.Table(r.Comparison)(stdout); err != nil {
			return err
		}
		fmt.Fprintln(stdout)
	}
	if err := verdict.Console(r.Verdicts)(stdout); err != nil {
		return err
	}
	for _, f := range r.verdictFiles() {
		if f.path == "" {
			continue
		}
		if err := WriteFile(f.path, f.report); err != nil {
			return err
		}
	}
	if err := r.WriteSummary(); err != nil {
		return err
	}
	if err := r.WriteHTML(sweeps); err != nil {
		return err
	}
	return sweeps.WriteErr
}

// fileReport is one file and the Reporter that fills it.
type fileReport struct {
	path   string
	report reports.Reporter
}

// verdictFiles are the files of the verdicts, in the order written:
// gates.json, then JUnit and Markdown (path "" when not asked for), then
// compare.json with a baseline.
func (r *RunReport) verdictFiles() []fileReport {
	files := []fileReport{
		{filepath.Join(r.Dir, gatesFile), verdict.JSON(r.Verdicts)},
		{r.JUnit, verdict.JUnit(r.Verdicts)},
		{r.Markdown, r.writeMarkdown},
	}
	if r.Comparison != nil {
		files = append(files, fileReport{filepath.Join(r.Dir, CompareFile), comparison.JSON(r.Comparison)})
	}
	return files
}

// writeMarkdown is the Markdown summary: the gates, then the comparison
// with the baseline when there is one.
func (r *RunReport) writeMarkdown(w io.Writer) error {
	if err := verdict.Markdown(r.Results, r.Verdicts)(w); err != nil {
		return err
	}
	if r.Comparison == nil {
		return nil
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	return comparison.Markdown(r.Comparison)(w)
}

// SweepPlots are the sweep plots drawn once, written into the run's
// folder and embedded in report.html as drawn, by experiment name: the
// capacity plots (plots.RenderSweepPlots), shown with the other plots,
// and the telemetry plots (plots.RenderTelemetrySweepPlots), shown in
// the experiment's telemetry section.
type SweepPlots struct {
	Capacity, Telemetry map[string][]plots.Image
	// WriteErr is the first sweep plot drawn but not written: plots were
	// asked for, so the run fails (exit 3) once everything else is written.
	WriteErr error
}

// WriteSweeps prints the table of every experiment with more than one
// point (or a search) and, with Plots, draws its sweep plots once,
// writes them into Dir and returns them for the page.
func (r *RunReport) WriteSweeps(stdout, stderr io.Writer) SweepPlots {
	sweeps := SweepPlots{Capacity: map[string][]plots.Image{}, Telemetry: map[string][]plots.Image{}}
	for i := range r.Results {
		res := &r.Results[i]
		if len(res.Points) < 2 && res.Analysis().Search == nil {
			continue
		}
		fmt.Fprintf(stdout, "\n== %s: sweep ==\n", res.Experiment.Name)
		if err := sweep.Console(res)(stdout); err != nil {
			fmt.Fprintf(stderr, "llmbench: sweep table of %s: %v\n", res.Experiment.Name, err)
		}
		if !r.Plots {
			continue
		}
		for _, set := range []struct {
			what   string
			render func(*runtime.ExperimentResult) ([]plots.Image, error)
			into   map[string][]plots.Image
		}{
			{"sweep plots", plots.RenderSweepPlots, sweeps.Capacity},
			{"telemetry sweep plots", plots.RenderTelemetrySweepPlots, sweeps.Telemetry},
		} {
			imgs, err := set.render(res)
			if err != nil {
				fmt.Fprintf(stderr, "llmbench: %s of %s: %v\n", set.what, res.Experiment.Name, err)
				continue
			}
			if _, err := plots.WriteImages(r.Dir, imgs); err != nil && sweeps.WriteErr == nil {
				sweeps.WriteErr = fmt.Errorf("%s of %s were not written: %w", set.what, res.Experiment.Name, err)
			}
			set.into[res.Experiment.Name] = imgs
		}
	}
	return sweeps
}

// WriteSummary writes summary.json.
func (r *RunReport) WriteSummary() error {
	return WriteFile(filepath.Join(r.Dir, SummaryFile), func(w io.Writer) error {
		return sweep.SummaryJSON(r.Verdicts.Scenario, r.Results, r.Verdicts.Partial)(w)
	})
}

// WriteHTML writes report.html, embedding the sweep plots given and each
// point's plots and telemetry plots from its folder.
func (r *RunReport) WriteHTML(sweeps SweepPlots) error {
	rep := html.Report{
		Title:    "llmbench: " + r.Verdicts.Scenario,
		Scenario: r.File,
		Config:   r.Config,
		Results:  r.Results,
		Verdicts: r.Verdicts.Verdicts,
		Check:    r.Verdicts.Check,
		Partial:  r.Verdicts.Partial,
	}
	if r.Comparison != nil {
		rep.Comparison = comparison.FileOf(r.Comparison)
	} else {
		rep.Comparison = r.StoredComparison
	}
	if r.Plots {
		var err error
		if rep.Plots, err = html.PlotGroups(r.Results, sweeps.Capacity, r.plotsOf(drawnPoint.pointPlots)); err != nil {
			return err
		}
		if rep.Telemetry, err = html.TelemetryPlotGroups(r.Results, sweeps.Telemetry, r.plotsOf(drawnPoint.telemetryPlots)); err != nil {
			return err
		}
	}
	return WriteFile(filepath.Join(r.Dir, htmlFile), html.Page(rep))
}

// plotsOf gives the page a point's plots of one kind (which) from
// Drawn, its first repeat's: the one in the point's own folder.
func (r *RunReport) plotsOf(which func(drawnPoint) []plots.Image) html.PointImages {
	return func(exp string, pt *runtime.PointResult) ([]plots.Image, error) {
		imgs, err := r.Drawn.of(r.pointDir(exp, pt.Params))
		return which(imgs), err
	}
}

// pointDir is where a point's plots were drawn: its folder, or for an
// A/B experiment its candidate side's (b/), whose points the results hold.
func (r *RunReport) pointDir(exp string, p plan.Params) string {
	dir := pointDir(r.Dir, exp, p)
	for _, res := range r.Results {
		if res.Experiment != nil && res.Experiment.Name == exp && res.Experiment.AB != nil {
			return filepath.Join(dir, engine.SideB.String())
		}
	}
	return dir
}

// WriteFile creates path and fills it with write, naming the path in any
// error.
func WriteFile(path string, write reports.Reporter) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
