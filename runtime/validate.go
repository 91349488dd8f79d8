package runtime

import (
	"errors"
	"slices"

	"github.com/llmbench/llmbench/runtime/plan"
)

// Validate refuses, before anything is sent, a plan that could only run
// wrong (plan.Experiment.Validate) or that this machine cannot hold: more
// connections than open files allow, a dataset larger than its memory.
// Every error is a *PlanError naming the parameter at fault, listed in
// the order of experiment()'s parameters, the first deciding where the
// scenario's error points.
func Validate(e *plan.Experiment) error {
	errs := e.Validate()
	fail := func(param string, err error) {
		errs = append(errs, &plan.PlanError{Experiment: e.Name, Param: param, Err: err})
	}
	for _, l := range e.Loads() {
		if err := CheckOpenFiles(l); err != nil {
			fail("traffic", err)
			break
		}
	}
	if err := checkDatasetMemory(e); err != nil {
		fail("dataset", err)
	}
	slices.SortStableFunc(errs, func(a, b error) int { return paramOrder(a) - paramOrder(b) })
	return errors.Join(errs...)
}

// validationOrder is the order Validate lists problems in.
var validationOrder = []string{"gates", "headers", "traffic", "dataset", "sweep"}

func paramOrder(err error) int {
	var pe *plan.PlanError
	if !errors.As(err, &pe) {
		return len(validationOrder)
	}
	return slices.Index(validationOrder, pe.Param)
}

// checkDatasetMemory is CheckDatasetMemory at every point whose dataset
// is known before running.
func checkDatasetMemory(e *plan.Experiment) error {
	points, err := e.Points()
	if err != nil || e.Adaptive() {
		points = []plan.PointSpec{e.Base()}
	}
	for _, p := range points {
		src := e.Dataset
		if p.Dataset != nil {
			src = p.Dataset
		}
		if err := CheckDatasetMemory(src, p); err != nil {
			return err
		}
	}
	return nil
}
