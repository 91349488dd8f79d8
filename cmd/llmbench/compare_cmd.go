package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/regression"
	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime/plan"
)

// compareCmd compares result sets point by point with statistics that
// say when they cannot tell (docs/compare.md); exit 1 on a regression
// beyond the tolerance.
type compareCmd struct {
	Baseline   string   `arg:"" help:"Baseline: a run folder, an analyze/profile artifact folder, a point folder, a records.parquet, or a GenAI-Perf profile_export.json."`
	Candidates []string `arg:"" name:"candidate" help:"Candidate(s), the same kinds, or a folder of runs (a history); with several runs, each is compared with the baseline in the order the runs started, a trend table follows (with the change points where a metric's level shifted, from three runs on), and the newest decides the exit code and the files."`

	MaxRegression      []string `default:"10%" sep:"," help:"Tolerance: a regression is reported only when the candidate is confidently worse by more than this (10% or 0.1); per metric as METRIC=5% (itl.p99=5%)."`
	Metrics            []string `sep:"," help:"Metrics to compare, named as gates name them (default: ttft.p50,ttft.p99,itl.p50,itl.p99,request_latency.p99,output_token_throughput,request_throughput,error_rate)."`
	Confidence         float64  `default:"0.95" help:"Level of the judge's one-sided bounds, in (0, 1): a regression is called only when the lower bound of the change at this level excludes no change."`
	FailOnInconclusive bool     `help:"Exit 1 also when a comparison is inconclusive (its interval straddles the tolerance)."`
	Force              bool     `help:"Compare sets that are not comparable (another model, dataset, token counting...), with a warning per difference."`
	JSON               string   `name:"json" type:"path" help:"Also write compare.json (docs/compare.md) to this file."`
	SummaryMd          string   `name:"summary-md" type:"path" help:"Also write a Markdown summary for a pull-request comment to this file."`
	Junit              string   `type:"path" help:"Also write JUnit XML (one test case per point and metric, failed for a regression) to this file."`
	PlotDir            string   `name:"plot-dir" type:"path" help:"Also draw a trend plot (PNG) per point and metric into this folder: every run's value with its confidence interval against the baseline and the regression limit."`
	Tokenizer          string   `help:"Tokenizer for counting the tokens of an imported GenAI-Perf export (as report takes it)."`
	changeFlags
}

func (c *compareCmd) Run(e *env) error {
	opt, err := c.options()
	if err != nil {
		return err
	}
	detect, err := c.changeFlags.options()
	if err != nil {
		return err
	}
	outs := []outPath{{"--json", c.JSON}, {"--summary-md", c.SummaryMd}, {"--junit", c.Junit}, {"--plot-dir", c.PlotDir}}
	if err := checkApart(outs, append([]string{c.Baseline}, c.Candidates...)...); err != nil {
		return err
	}
	load := storedrun.Options{Stderr: e.stderr, Import: storedrun.ImportOptions{Tokenizer: c.Tokenizer}}
	base, err := loadBaseline(e, c.Baseline, load)
	if err != nil {
		return err
	}
	cands, err := loadInRunOrder(c.Candidates, load)
	if err != nil {
		return err
	}
	var history []*comparison.Report
	for _, cand := range cands {
		r, err := c.compare(e.stdout, base, cand, opt)
		if err != nil {
			return err
		}
		history = append(history, r)
	}
	if len(history) >= 3 { // fewer runs have no change point to find
		if history[len(history)-1].History, err = comparison.FindChangePoints(history, false, detect); err != nil {
			return runFailed("change points: %w", err)
		}
	}
	if len(history) > 1 {
		if err := comparison.Trend(history)(e.stdout); err != nil {
			return err
		}
	}
	if err := c.plot(e.stdout, history); err != nil {
		return err
	}
	newest := history[len(history)-1]
	if err := c.write(newest); err != nil {
		return err
	}
	return c.verdict(newest)
}

// loadBaseline loads the baseline: one run, or a folder of several runs
// (the last runs of the main branch) joined point by point as
// `run --baseline` joins them, so the judge sees how they vary from run
// to run and both commands judge the same runs.
func loadBaseline(e *env, path string, load storedrun.Options) (*storedrun.Run, error) {
	sets, err := storedrun.LoadHistory(path, load)
	if err != nil {
		return nil, err
	}
	if len(sets) == 1 {
		return sets[0], nil
	}
	joined, warnings, note := regression.JoinHistory(path, sets)
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "llmbench: warning: %s\n", w)
	}
	fmt.Fprintf(e.stderr, "llmbench: baseline: %s\n", note)
	return joined, nil
}

// loadInRunOrder loads the candidates, a folder of runs giving each of
// its runs, and orders them by when each run started (its earliest
// request), the order of a history.
func loadInRunOrder(paths []string, load storedrun.Options) ([]*storedrun.Run, error) {
	var sets []*storedrun.Run
	for _, path := range paths {
		runs, err := storedrun.LoadHistory(path, load)
		if err != nil {
			return nil, err
		}
		sets = append(sets, runs...)
	}
	slices.SortStableFunc(sets, func(a, b *storedrun.Run) int { return a.Start.Compare(b.Start) })
	return sets, nil
}

// compare compares two sets (refusing incomparable ones unless --force)
// and prints the comparison.
func (c *compareCmd) compare(w io.Writer, base, cand *storedrun.Run, opt comparison.Options) (*comparison.Report, error) {
	r, err := regression.Sets(base, cand, opt, c.Force)
	if err != nil {
		return nil, invalid("%w", err)
	}
	return r, comparison.Table(r)(w)
}

// plot draws the trend plots of the history (one run or more) into
// --plot-dir and names each file written.
func (c *compareCmd) plot(w io.Writer, history []*comparison.Report) error {
	if c.PlotDir == "" {
		return nil
	}
	paths, err := plots.WriteTrendPlots(c.PlotDir, comparison.TrendSeries(history))
	if err != nil {
		return runFailed("--plot-dir: %w", err)
	}
	for _, p := range paths {
		fmt.Fprintf(w, "trend plot: %s\n", p)
	}
	return nil
}

// write writes the requested files of the last comparison.
func (c *compareCmd) write(r *comparison.Report) error {
	for _, f := range []struct {
		flag, path string
		report     reports.Reporter
	}{{"--json", c.JSON, comparison.JSON(r)}, {"--summary-md", c.SummaryMd, comparison.Markdown(r)},
		{"--junit", c.Junit, comparison.JUnit(r, c.FailOnInconclusive)}} {
		if f.path == "" {
			continue
		}
		if err := artifacts.WriteFile(f.path, f.report); err != nil {
			return runFailed("%s: %w", f.flag, err)
		}
	}
	return nil
}

// verdict is exit 1 for a regression (or, with --fail-on-inconclusive, an
// inconclusive comparison), nil otherwise.
func (c *compareCmd) verdict(r *comparison.Report) error {
	switch {
	case len(r.Regressions()) > 0:
		return &errGatesFailed{status: comparison.Headline(r)}
	case c.FailOnInconclusive && r.Count(metrics.VerdictInconclusive) > 0:
		return &errGatesFailed{status: fmt.Sprintf("%s inconclusive (--fail-on-inconclusive)", verdict.Plural(r.Count(metrics.VerdictInconclusive), "comparison"))}
	}
	return nil
}

// options reads the tolerance, metrics and confidence flags.
func (c *compareCmd) options() (comparison.Options, error) {
	opt := comparison.DefaultOptions()
	opt.Metrics, opt.Tolerances = c.Metrics, map[string]float64{}
	if !(c.Confidence > 0 && c.Confidence < 1) {
		return opt, invalid("--confidence: got %g, want a level in (0, 1) such as 0.95", c.Confidence)
	}
	opt.Judge.Confidence = c.Confidence
	for _, spec := range c.MaxRegression {
		metric, share, per := strings.Cut(spec, "=")
		if !per {
			metric, share = "", spec
		}
		tol, err := parseTolerance(share)
		if err != nil {
			return opt, invalid("--max-regression %s: %w", spec, err)
		}
		if metric == "" {
			opt.Tolerance = tol
		} else if _, err := metrics.MetricDirection(metric); err != nil {
			return opt, invalid("--max-regression %s: %w", spec, err)
		} else {
			opt.Tolerances[metric] = tol
		}
	}
	for _, m := range c.Metrics {
		if _, err := metrics.MetricDirection(m); err != nil {
			return opt, invalid("--metrics %s: %w", m, err)
		}
	}
	return opt, nil
}

// parseTolerance reads "10%" or "0.1": a fraction in [0, 1).
func parseTolerance(s string) (float64, error) {
	v, err := plan.ParseShare(s)
	if err != nil || !(v >= 0 && v < 1) {
		return 0, fmt.Errorf("got %q, want a share from 0 to under 100%% such as 10%% or 0.1", s)
	}
	return v, nil
}
