package runtime

import (
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/plan"
)

// A gate on one dataset component finds that component's knee: the whole
// point can miss an SLO its chat share meets.
func TestKneeOfComponentGate(t *testing.T) {
	point := func(c, wholeTTFT, chatTTFT float64) PointResult {
		out := &Outcome{
			Summary:    metrics.Summary{TimeToFirstToken: metrics.NewDistribution([]float64{wholeTTFT}), Completed: 1},
			Components: []ComponentSummary{{Name: "chat", Summary: metrics.Summary{TimeToFirstToken: metrics.NewDistribution([]float64{chatTTFT}), Completed: 1}}},
		}
		return PointResult{Params: plan.Params{metrics.ParamConcurrency: c}, Outcome: out, Repeats: []*Outcome{out}}
	}
	g, err := metrics.ParseGate("ttft.p99 < 100ms @ component=chat")
	if err != nil {
		t.Fatal(err)
	}
	e := &plan.Experiment{Name: "e", Gates: []metrics.Gate{g}}
	res := &ExperimentResult{Experiment: e, Points: []PointResult{point(1, 200e6, 40e6), point(2, 250e6, 60e6), point(4, 400e6, 150e6)}}
	c := AnalyzeCapacity(res, nil)
	if k := c.Knees[0]; !k.Found || res.Points[k.Point].Params[metrics.ParamConcurrency] != 2 {
		t.Errorf("component knee %+v, want the point at concurrency 2", k)
	}
	whole, _ := metrics.ParseGate("ttft.p99 < 100ms")
	if k := c.KneeFor(res, whole); k.Found {
		t.Errorf("whole-point knee %+v, want none (every point misses)", k)
	}
}

// A cost gate is judged on the experiment's price over the point's output.
func TestCostGate(t *testing.T) {
	g, err := metrics.ParseGate("cost_per_mtok < 2")
	if err != nil {
		t.Fatal(err)
	}
	e := &plan.Experiment{Name: "e", Gates: []metrics.Gate{g}, CostPerHour: 3.6, Endpoint: plan.Endpoint{Stream: true}, Load: plan.Load{Concurrency: 1}}
	out := &Outcome{Summary: metrics.Summary{OutputTokenThroughput: 1000}}
	r := EvaluateGates(e, nil, plan.Params{metrics.ParamConcurrency: 1}, out)
	if len(r) != 1 || r[0].Err != nil || r[0].Measured != 1 || !r[0].Passed {
		t.Errorf("cost gate: %+v (3.6/h at 1000 tok/s is 1 per Mtok)", r)
	}
	e.CostPerHour = 0
	if err := Validate(e); err == nil {
		t.Error("a cost gate without cost_per_hour was accepted")
	}
}
