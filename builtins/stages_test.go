package builtins

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// TestStagesPlan: stages() plans the k6 profile it reads — targets,
// durations, names, the peak as the loop's size — and the point lasts
// the stages.
func TestStagesPlan(t *testing.T) {
	path := writeScenario(t, "s.star", `
def main(ctx):
    t = stages([("30s", 100, "ramp"), ("2m", 100, "hold"), (30, 0)])
    o = stages([("10s", 5)], over = "rate", start = 1, arrival = "constant", max_concurrency = 8)
    return [
        experiment("closed", sim(), synthetic(10, 10), t, gates = ["ttft.p99 < 1s @ stage=hold", "error_rate < 1% @ stage=2"]),
        experiment("open", sim(), synthetic(10, 10), o),
    ]
`)
	scen, err := Load(path, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	closed, open := scen.Experiments[0], scen.Experiments[1]
	want := plan.Load{Concurrency: 100, Stages: &plan.Stages{List: []plan.Stage{
		{Name: "ramp", Duration: 30 * time.Second, Target: 100}, {Name: "hold", Duration: 2 * time.Minute, Target: 100}, {Duration: 30 * time.Second}}}}
	if !reflect.DeepEqual(closed.Load, want) || closed.Duration != 3*time.Minute || closed.Requests != 0 {
		t.Errorf("closed planned as %+v for %v (%d requests), want %+v for 3m", closed.Load, closed.Duration, closed.Requests, want)
	}
	if got := closed.Load.String(); got != `stages([("30s", 100, "ramp"), ("2m", 100, "hold"), ("30s", 0)], over="concurrency")` {
		t.Errorf("closed renders as %s", got)
	}
	if i, ok := closed.Load.StageIndex("hold"); !ok || i != 1 {
		t.Errorf(`StageIndex("hold") = %d, %v`, i, ok)
	}
	if l := open.Load; l.Rate != 5 || l.Arrival != plan.Constant || l.MaxConcurrency != 8 || l.Stages.Start != 1 || open.Duration != 10*time.Second {
		t.Errorf("open planned as %+v for %v", l, open.Duration)
	}
}

func TestStagesRefusals(t *testing.T) {
	for _, c := range []struct{ traffic, extra, msg string }{
		{`stages([("2s", 1.5)])`, "", "at index 0: target: got 1.5, want a number >= 0 (a whole number of workers under a closed loop)"},
		{`stages([("2s", 0)])`, "", "every target is 0"},
		{`stages([("0s", 3)])`, "", "the stages last 0 s"},
		{`stages([("2s", 3, "7")])`, "", "that is not a number"},
		{`stages([("2s", 3)], burstiness = 2)`, "", `for parameter burstiness: only means something with over="rate"`},
		{`stages([("2s", 3)])`, `, duration = "5s"`, "for parameter duration: a stages() traffic lasts its stages (2s)"},
		{`stages([("2s", 3)])`, `, warmup = 5`, "for parameter warmup"},
		{`stages([("2s", 3)])`, `, gates = ["ttft < 1s @ stage=hold"]`, `judges stage hold, but the traffic's stages are 0`},
		{`stages([("2s", 3)])`, `, sweep = sweep(concurrency = [1, 2])`, "cannot be swept"},
		{`concurrency(3)`, `, gates = ["ttft < 1s @ stage=0"]`, "not stages(...)"},
	} {
		path := writeScenario(t, "s.star", `
def main(ctx):
    return experiment("x", sim(), synthetic(10, 10), `+c.traffic+c.extra+`)
`)
		if le := loadErr(t, path, Options{}); !strings.Contains(le.Error(), c.msg) {
			t.Errorf("%s%s: got %v, want %q", c.traffic, c.extra, le, c.msg)
		}
	}
}

// check() sees a stages() point's stages in order, each with its own
// metrics (p.stages[1].ttft.p99).
func TestPointStagesInCheck(t *testing.T) {
	out := &runtime.Outcome{Summary: summaryWith(5e6), Stages: []runtime.StageSummary{
		{Index: 0, Label: "stage 0", Target: 4, Summary: summaryWith(7e6)}, {Index: 1, Name: "hold", Label: "hold", Target: 4, Summary: summaryWith(9e6)}}}
	p := newPointValue(&plan.Experiment{}, &runtime.PointResult{Params: plan.Params{"concurrency": 4}, Outcome: out})
	v, err := starlark.Eval(&starlark.Thread{}, "p", `(p.stages[1].name, p.stages[1].ttft.avg, p.stages[0].name, len(p.stages))`,
		starlark.StringDict{"p": p})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.String(); got != `("hold", 9.0, None, 2)` {
		t.Errorf("stages seen as %s", got)
	}
}
