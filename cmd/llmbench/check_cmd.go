package main

import (
	"fmt"
	"io"

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

// printPlan shows every experiment and every point it will run
// (plan.Experiment.String), saying which baselines were not loaded.
func printPlan(w io.Writer, scen *runtime.Scenario, baselines *regression.Baselines) error {
	fmt.Fprintf(w, "Scenario %s: %d experiment(s)\n", scen.File, len(scen.Experiments))
	for i := range scen.Experiments {
		exp := &scen.Experiments[i]
		if !exp.Adaptive() {
			if _, err := exp.Points(); err != nil {
				return invalid("%w", err)
			}
		}
		loaded := baselines != nil && baselines.Against[exp.Name] != nil
		fmt.Fprintf(w, "\n%s", exp.Describe(loaded))
	}
	if scen.Check != nil {
		fmt.Fprintln(w, "\ncheck(results) runs after all experiments")
	}
	return nil
}
