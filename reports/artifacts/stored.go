package artifacts

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/llmbench/llmbench/metrics"
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
		res.Points = append(res.Points, rebuildPoint(exp, runs[start:end]))
		start = end
	}
	res.Capacity = runtime.AnalyzeCapacity(&res, runtime.ReplayDecisions(exp, res.Points))
	return res, nil
}

// rebuildPoint is one point from the runs of its repeats, in repeat order.
func rebuildPoint(exp *runtime.Experiment, runs []StoredRun) runtime.PointResult {
	pr := runtime.PointResult{Params: runs[0].Record.Point.Params}
	summaries := make([]*metrics.Summary, len(runs))
	for i, r := range runs {
		pr.Repeats = append(pr.Repeats, r.Outcome)
		summaries[i] = &r.Outcome.Summary
	}
	pr.Outcome = pr.Repeats[0]
	if len(pr.Repeats) > 1 {
		pr.RepeatStats = metrics.HeadlineRepeats(summaries)
	}
	pr.Gates = runtime.EvaluateGates(exp, pr.Params, pr.Repeats...)
	return pr
}
