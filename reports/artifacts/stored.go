package artifacts

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/runtime"
)

// pointRun is one run of one point read back from its records file: its
// saved plan and the outcome its records reduce to.
type pointRun struct {
	Record  runtime.PointRecord
	Outcome *runtime.Outcome
}

// rebuild reads an experiment's stored runs back into the ExperimentResult
// the run produced: the plan from the saved records (gates and sweep as
// written), the points in run order with their repeats, each judged as
// the runtime judges a point, and the capacity analysed by the same
// function, an adaptive sweep's decisions replayed from the points.
// attach, when not nil, is given the rebuilt experiment before its points
// are judged (merge sets its baseline there).
func rebuild(runs []pointRun, attach func(*runtime.Experiment) error) (runtime.ExperimentResult, error) {
	if len(runs) == 0 {
		return runtime.ExperimentResult{}, fmt.Errorf("no stored runs")
	}
	// A point is its place in run order and its parameters: two sweeps
	// written into one folder (analyze's shared artifact dir) reuse places.
	same := func(a, b pointRun) bool {
		return a.Record.Point.Index == b.Record.Point.Index && a.Record.Point.Params.Label() == b.Record.Point.Params.Label()
	}
	slices.SortStableFunc(runs, func(a, b pointRun) int {
		return cmp.Or(cmp.Compare(a.Record.Point.Index, b.Record.Point.Index),
			strings.Compare(a.Record.Point.Params.Label(), b.Record.Point.Params.Label()),
			cmp.Compare(a.Record.Point.Repeat, b.Record.Point.Repeat))
	})
	exp, err := runs[0].Record.Plan.Experiment()
	if err != nil {
		return runtime.ExperimentResult{}, err
	}
	if attach != nil {
		if err := attach(exp); err != nil {
			return runtime.ExperimentResult{}, err
		}
	}
	res := runtime.ExperimentResult{Experiment: exp}
	for start := 0; start < len(runs); {
		end := start + 1
		for end < len(runs) && same(runs[end], runs[start]) {
			end++
		}
		repeats := make([]*runtime.Outcome, 0, end-start)
		for _, r := range runs[start:end] {
			repeats = append(repeats, r.Outcome)
		}
		res.Points = append(res.Points, runtime.NewPointResult(exp, runs[start].Record.Point.Params, repeats))
		start = end
	}
	res.Capacity = runtime.AnalyzeCapacity(&res, runtime.ReplayDecisions(exp, res.Points))
	return res, nil
}
