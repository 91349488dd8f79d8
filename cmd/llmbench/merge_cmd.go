package main

import (
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/reports/artifacts"
	"github.com/llmbench/llmbench/reports/html"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/reports/views"
	"github.com/llmbench/llmbench/runtime"
)

// mergeCmd joins the shards of a distributed run (run --shard I/N) into
// the run one machine would have written: the union of their records per
// point, every metric and gate recomputed from it, check() judged with
// --scenario, baseline gates against the baseline the shards' plans name
// (or --baseline); the exit code is the verdict.
type mergeCmd struct {
	Dirs         []string `arg:"" type:"path" help:"The shards' output folders (each one's --out)."`
	Scenario     string   `type:"path" help:"The scenario the shards ran, to judge its check() over the merged results."`
	Define       []string `short:"D" sep:"none" help:"key=value for the scenario's ctx.vars, as the shards were given (repeatable)."`
	AllowMissing bool     `help:"Merge the shards that are there when some are missing or failed: a warning, and a result marked partial."`
	NoPlots      bool     `help:"Do not render PNG plots (per point in <point>/plots/, per sweep in OUT/)."`
	outputFlags
	starlarkFlags
	baselineFlags
	logFlags
}

func (c *mergeCmd) Run(e *env) error {
	if err := c.outputFlags.check(); err != nil {
		return err
	}
	if err := checkApart(c.outputFlags.paths(), append([]string{c.Scenario, c.Baseline}, c.Dirs...)...); err != nil {
		return err
	}
	var scen *runtime.Scenario
	if c.Scenario != "" {
		var err error
		if scen, err = loadScenario(e, c.Scenario, c.Define, &c.starlarkFlags); err != nil {
			return err
		}
	}
	merged, err := artifacts.MergeShards(e.stderr, c.Dirs, artifacts.MergeOptions{Out: c.Out, AllowMissing: c.AllowMissing})
	if err != nil {
		return err
	}
	baselines := c.baselineFlags.baselines(e) // each rebuilt experiment attaches its own
	drawn := &artifacts.PointPlots{}          // report.html embeds the plots drawn here
	results, err := artifacts.RebuildRun(e.stdout, e.stderr, c.Out,
		artifacts.RebuildOptions{View: views.GenAIPerf, Plots: !c.NoPlots, Drawn: drawn, Attach: baselines.Attach})
	if err != nil {
		return err
	}
	printBaselineWarnings(e, baselines)
	rep := &verdict.Report{Scenario: mergedName(scen, c.Dirs), Verdicts: verdict.Collect(results),
		Partial: partialMerge(merged), Check: verdict.CheckNotDefined}
	var checkErr error
	if scen != nil {
		checkErr = judgeCheck(scen, results, rep, nil)
	}
	run := artifacts.RunReport{Dir: c.Out, File: c.Scenario, Config: mergeConfig(c, merged), Results: results,
		Verdicts: rep, Plots: !c.NoPlots, Drawn: drawn, JUnit: c.Junit, Markdown: c.SummaryMd, Comparison: compareWithBaselines(e, c.Out, baselines)}
	if err := run.Write(e.stdout, e.stderr); err != nil {
		return runFailed("writing results: %w", err)
	}
	fmt.Fprintln(e.stdout)
	if err := run.WriteFileList(e.stdout); err != nil {
		return runFailed("writing results: %w", err)
	}
	return firstByPrecedence(requestFailures(results...), checkErr, rep)
}

func partialMerge(merged []artifacts.MergedPoint) bool {
	for _, m := range merged {
		if len(m.Missing) > 0 {
			return true
		}
	}
	return false
}

func mergedName(scen *runtime.Scenario, dirs []string) string {
	if scen != nil {
		return scenarioName(scen)
	}
	return "merge of " + strings.Join(dirs, ", ")
}

// mergeConfig is report.html's configuration list of a merged run.
func mergeConfig(c *mergeCmd, merged []artifacts.MergedPoint) []html.KV {
	shards := 0
	for _, m := range merged {
		shards = max(shards, len(m.Shards)+len(m.Missing))
	}
	kv := []html.KV{{Key: "merged from", Value: strings.Join(c.Dirs, ", ")},
		{Key: "shards", Value: fmt.Sprint(shards)}, {Key: "llmbench", Value: version}}
	if c.Scenario != "" {
		kv = append([]html.KV{{Key: "scenario", Value: c.Scenario}}, kv...)
	}
	return kv
}
