package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/regression"
	"github.com/llmbench/llmbench/runtime"
)

// checkCmd loads and validates a scenario and prints its expanded plan
// without sending a single request.
// It refuses exactly what run would refuse before sending: the scenario's
// errors and output places that cannot be written (it takes run's output
// flags for that; nothing is created).
type checkCmd struct {
	scenarioFlags
}

func (c *checkCmd) Run(e *env) error {
	scen, err := c.load(e)
	if err != nil {
		return err
	}
	if err := replan(scen, c.baselineFlags.override); err != nil {
		return err
	}
	baselines, err := c.baselineFlags.attach(e, scen)
	if err != nil {
		return err
	}
	return printPlan(e.stdout, scen, baselines)
}

// printPlan shows every experiment and every point it will run, and the
// baselines loaded for them (nil: none).
func printPlan(w io.Writer, scen *runtime.Scenario, baselines *regression.Baselines) error {
	fmt.Fprintf(w, "Scenario %s: %d experiment(s)\n", scen.File, len(scen.Experiments))
	for i := range scen.Experiments {
		exp := &scen.Experiments[i]
		var points []runtime.PointSpec
		if !exp.Adaptive() {
			var err error
			if points, err = exp.Points(); err != nil {
				return invalid("%w", err)
			}
		}
		fmt.Fprintf(w, "\nexperiment %q\n", exp.Name)
		fmt.Fprintf(w, "  endpoint:  %s\n", exp.Endpoint.String())
		fmt.Fprintf(w, "  dataset:   %s\n", exp.Dataset)
		fmt.Fprintf(w, "  traffic:   %s\n", exp.Load)
		fmt.Fprintf(w, "  per point: %s, warmup %d, repeats %d\n", stopText(exp), exp.Warmup, max(exp.Repeats, 1))
		if len(exp.Goodput) > 0 {
			slos := make([]string, len(exp.Goodput))
			for j, slo := range exp.Goodput {
				slos[j] = fmt.Sprintf("%s:%g", slo.Metric, slo.Value)
			}
			fmt.Fprintf(w, "  goodput:   %s\n", strings.Join(slos, " "))
		}
		if exp.Adaptive() {
			fmt.Fprintf(w, "  points:    chosen while running by %s\n", exp.Sweep)
		} else {
			labels := make([]string, len(points))
			for j, p := range points {
				labels[j] = p.Params.Label() + loadText(p.Load)
			}
			fmt.Fprintf(w, "  points (%d): %s\n", len(points), strings.Join(labels, ", "))
		}
		var against *runtime.Baseline
		if baselines != nil {
			against = baselines.Against[exp.Name]
		}
		switch {
		case against != nil:
			fmt.Fprintf(w, "  baseline:  %s\n", against.Path)
		case exp.Baseline != "":
			fmt.Fprintf(w, "  baseline:  %s (not loaded: baseline gates skipped)\n", exp.Baseline)
		}
		for _, g := range exp.Gates {
			fmt.Fprintf(w, "  gate:      %s\n", gateText(g))
		}
	}
	if scen.Check != nil {
		fmt.Fprintln(w, "\ncheck(results) runs after all experiments")
	}
	return nil
}

func stopText(exp *runtime.Experiment) string {
	if r := exp.Steady; r != nil {
		limit := fmt.Sprintf("%d requests", exp.Requests)
		if exp.Duration > 0 {
			limit = exp.Duration.String()
		}
		return fmt.Sprintf("until p50/p99 CIs are within ±%g%% (at least %d requests after the warm-up, at most %s)", 100*r.CI, r.MinRequests, limit)
	}
	switch {
	case exp.Duration > 0:
		return "for " + exp.Duration.String()
	case exp.Sessions > 0: // conversations stopped by a count of sessions, each run to its last turn
		return fmt.Sprintf("%d sessions", exp.Sessions)
	}
	return fmt.Sprintf("%d requests", exp.Requests)
}

// gateText is a gate as written, with the currency a cost gate is
// counted in when the gate does not say it.
func gateText(g metrics.Gate) string {
	if g.Currency != "" && !strings.Contains(g.Source, g.Currency) {
		return g.Source + " (" + g.Currency + " per Mtok)"
	}
	return g.Source
}

// loadText is what a point's label leaves out of its load: an open loop's
// arrivals and cap, users' rate.
func loadText(l runtime.Load) string {
	if l.Paced() {
		return " (qps=" + strconv.FormatFloat(l.Rate, 'g', -1, 64) + ")"
	}
	if l.Closed() {
		return ""
	}
	s := " (" + string(l.Arrival)
	if l.MaxConcurrency > 0 {
		s += fmt.Sprintf(", max %d in flight", l.MaxConcurrency)
	}
	return s + ")"
}
