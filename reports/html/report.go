package html

import (
	"fmt"
	"io"

	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
)

// KV is one line of the configuration table. A slice rather than a map
// keeps the caller's order, which is the order people read options in.
type KV struct {
	Key, Value string
}

// PlotGroup is a titled set of PNGs shown together, such as one point's
// five plots or one experiment's sweep plots.
type PlotGroup struct {
	Title string
	// Images are plots rendered in memory (plots.RenderSweepPlots,
	// plots.RenderPointPlots); the page embeds their bytes as they are,
	// the bytes written to disk, so no plot is drawn twice or read back.
	Images []plots.Image
}

// Report is everything report.html shows. Only Results is required; the
// rest is shown when present.
type Report struct {
	// Title heads the page; "llmbench report" when empty.
	Title string
	// Scenario is the scenario file's path.
	Scenario string
	// Config is the run's configuration (CLI flags, tool version...), shown
	// before each experiment's own settings, which Write derives itself.
	Config []KV
	// Results are the experiments in run order.
	Results []runtime.ExperimentResult
	// Verdicts are the gate results (verdict.Collect plus check() failures).
	Verdicts []verdict.Verdict
	// Plots are embedded in order; PlotGroups makes them from Results.
	Plots []PlotGroup
	// Telemetry are the telemetry plots shown in each experiment's
	// telemetry section, by experiment name; TelemetryPlotGroups makes
	// them from Results.
	Telemetry map[string]TelemetryPlots
	// Check is what became of the scenario's check(results), shown with
	// the gates; "" shows nothing.
	Check verdict.CheckState
	// Comparison is the run compared with its baseline (compare.json),
	// shown after the gates; nil shows nothing.
	Comparison *comparison.File
	// Partial says the run was interrupted before it finished: the page
	// then opens with a banner saying so, since its tables and plots
	// cover only the points that ran.
	Partial bool
}

// Page renders rep as one self-contained HTML page. It fails only when a
// plot is not a PNG or w fails, so a report with a broken plot is an
// error rather than a page with a broken image.
func Page(rep Report) reports.Reporter {
	page, err := buildPage(rep)
	return func(w io.Writer) error {
		if err != nil {
			return err
		}
		if err := pageTemplate.Execute(w, page); err != nil {
			return fmt.Errorf("report.html: %w", err)
		}
		return nil
	}
}
