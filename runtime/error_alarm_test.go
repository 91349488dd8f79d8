package runtime

import (
	"fmt"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/failure"
	"github.com/llmbench/llmbench/runtime/plan"
)

// The default error budget judges each point, its repeats pooled, and
// steps aside for an experiment with an error budget and for a point an
// error_rate gate judged.
func TestErrorAlarms(t *testing.T) {
	out := func(completed, failed int) *Outcome {
		return &Outcome{Summary: metrics.Summary{Completed: completed, Failed: failed,
			Errors: []metrics.ErrorCount{{Class: "http", Status: 500, Message: "boom", Count: failed}}}}
	}
	point := func(gates []GateResult, outs ...*Outcome) PointResult {
		return PointResult{Params: plan.Params{"concurrency": 4}, Outcome: outs[0], Repeats: outs, Gates: gates}
	}
	errGate := []GateResult{{Gate: metrics.Gate{Source: "error_rate < 99%", Metric: metrics.ErrorRate}, Passed: true}}
	ttftGate := []GateResult{{Gate: metrics.Gate{Source: "ttft.p99 < 1s", Metric: metrics.TTFT, Stat: "p99"}, Passed: true}}
	budget, _ := plan.NewErrorBudget(1)
	for _, c := range []struct {
		name   string
		exp    plan.Experiment
		p      PointResult
		failed int // 0: no alarm
	}{
		{"server died", plan.Experiment{Name: "e"}, point(nil, out(2, 38)), 38},
		{"at the default is no alarm", plan.Experiment{Name: "e"}, point(nil, out(90, 10)), 0},
		{"just past the default", plan.Experiment{Name: "e"}, point(nil, out(89, 11)), 11},
		{"repeats are pooled", plan.Experiment{Name: "e"}, point(nil, out(100, 0), out(70, 30)), 30},
		{"a latency gate does not judge errors", plan.Experiment{Name: "e"}, point(ttftGate, out(2, 38)), 38},
		{"an error_rate gate judges them", plan.Experiment{Name: "e"}, point(errGate, out(2, 38)), 0},
		{"an error budget accepts them", plan.Experiment{Name: "e", ErrorBudget: budget}, point(nil, out(2, 38)), 0},
		{"nothing finished", plan.Experiment{Name: "e"}, point(nil, out(0, 0)), 0},
	} {
		res := []ExperimentResult{{Experiment: &c.exp, Points: []PointResult{c.p}}}
		alarms := ErrorAlarms(res)
		if c.failed == 0 {
			if len(alarms) != 0 || CheckErrors(res) != nil {
				t.Errorf("%s: alarms %+v", c.name, alarms)
			}
			continue
		}
		if len(alarms) != 1 || alarms[0].Failed != c.failed || alarms[0].Experiment != "e" || alarms[0].Point != "concurrency4" ||
			alarms[0].Limit != 10 || alarms[0].MostCommon != fmt.Sprintf("http 500: boom (%d times)", c.failed) {
			t.Errorf("%s: alarms %+v", c.name, alarms)
		}
		if err := CheckErrors(res); err == nil || failure.ClassOf(err) != failure.Run {
			t.Errorf("%s: CheckErrors = %v, want a run failure", c.name, err)
		}
	}
}
