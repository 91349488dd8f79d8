package storedrun

import (
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// Points are told apart by their place in run order and their parameters:
// two analyze sweeps written into one folder both have a point 0, and
// neither becomes a "repeat" of the other; repeats of one point stay one.
func TestRebuildKeepsPointsApart(t *testing.T) {
	run := func(index, repeat int, params plan.Params) Measured {
		rec := runtime.PointRecord{Version: runtime.PointRecordVersion,
			Plan:  plan.Experiment{Name: "m", Repeats: 2, Load: plan.Load{Concurrency: 1}},
			Point: runtime.PointRef{Params: params, Repeat: repeat, Index: index}}
		return Measured{Repeat: &Repeat{Plan: &rec}, Out: &runtime.Outcome{Summary: metrics.Summary{Completed: 1}}}
	}
	c1, r5 := plan.Params{metrics.ParamConcurrency: 1}, plan.Params{metrics.ParamRate: 5}
	res, err := rebuild([]Measured{run(0, 1, r5), run(0, 2, c1), run(0, 1, c1), run(1, 1, plan.Params{metrics.ParamConcurrency: 2})}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 3 {
		t.Fatalf("%d points, want 3 (c=1 with 2 repeats, rate 5, c=2)", len(res.Points))
	}
	for _, p := range res.Points {
		want := 1
		if p.Params.Label() == "concurrency1" {
			want = 2
		}
		if len(p.Repeats) != want {
			t.Errorf("%s: %d repeats, want %d", p.Params.Label(), len(p.Repeats), want)
		}
	}
}
