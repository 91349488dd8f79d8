package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/reports/html"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
)

// writeHTMLReport writes OUT/report.html: one self-contained page (no
// network, plots embedded) with the configuration, gate verdicts, sweep
// tables, plots, per-component breakdowns and errors by class.
func writeHTMLReport(out string, scen *runtime.Scenario, results []runtime.ExperimentResult, vr *verdict.Report, withPlots bool) error {
	rep := html.Report{
		Title:    "llmbench: " + scenarioName(scen),
		Scenario: scen.File,
		Config:   scenarioConfig(scen),
		Results:  results,
		Verdicts: vr.Verdicts,
	}
	if withPlots {
		tmp, err := os.MkdirTemp("", "llmbench-html-plots")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		pointDir := func(exp string, pt *runtime.PointResult) string { return filepath.Join(out, exp, pt.Params.Label()) }
		if rep.Plots, err = html.RenderPlots(tmp, results, pointDir); err != nil {
			return err
		}
	}
	return writeFile(filepath.Join(out, "report.html"), func(f *os.File) error { return html.Write(f, rep) })
}

// scenarioConfig lists what a reader of the report needs to know about
// how it was produced; endpoint headers are never included.
func scenarioConfig(scen *runtime.Scenario) []html.KV {
	names := make([]string, len(scen.Experiments))
	for i, e := range scen.Experiments {
		names[i] = e.Name
	}
	return []html.KV{
		{Key: "scenario", Value: scen.File},
		{Key: "experiments", Value: strings.Join(names, ", ")},
		{Key: "llmbench", Value: version},
		{Key: "check(results)", Value: fmt.Sprint(scen.Check != nil)},
	}
}
