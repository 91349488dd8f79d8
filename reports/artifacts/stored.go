package artifacts

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/llmbench/llmbench/runtime"
)

// StoredRun is one run of one point read back from its records file: its
// saved plan and the outcome its records reduce to.
type StoredRun struct {
	Record  runtime.PointRecord
	Outcome *runtime.Outcome
}

// Rebuild reads an experiment's stored runs back into the ExperimentResult
// the run produced: the plan from the saved records (gates and sweep as
// written), the points in run order with their repeats, each judged as
// the runtime judges a point, and the capacity analysed by the same
// function, an adaptive sweep's decisions replayed from the points.
func Rebuild(runs []StoredRun) (runtime.ExperimentResult, error) {
	if len(runs) == 0 {
		return runtime.ExperimentResult{}, fmt.Errorf("no stored runs")
	}
	slices.SortStableFunc(runs, func(a, b StoredRun) int {
		return cmp.Or(cmp.Compare(a.Record.Point.Index, b.Record.Point.Index), cmp.Compare(a.Record.Point.Repeat, b.Record.Point.Repeat))
	})
	exp, err := runs[0].Record.Plan.Experiment()
	if err != nil {
		return runtime.ExperimentResult{}, err
	}
	res := runtime.ExperimentResult{Experiment: exp}
	for start := 0; start < len(runs); {
		end := start + 1
		for end < len(runs) && runs[end].Record.Point.Index == runs[start].Record.Point.Index {
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
