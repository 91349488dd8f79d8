package builtins

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.starlark.net/starlark"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// stages(stages, over="concurrency", start=0, arrival="poisson",
// burstiness=1.0, max_concurrency=None): k6's stages — each stage
// (duration, target) or (duration, target, name) moves the target
// linearly from the previous stage's (from start, for the first) to its
// own over its duration; over says whether targets are a closed loop's
// concurrency (k6's ramping-vus) or an open loop's request rate (k6's
// ramping-arrival-rate, whose arrival process stays arrival=). The point
// lasts the stages' total; each stage is reported apart as well as the
// whole, and a gate names one with "@ stage=NAME" or "@ stage=INDEX".
func stagesBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		list       *starlark.List
		over       = oneOf(string(plan.OverConcurrency), string(plan.OverConcurrency), string(plan.OverRate))
		start      number
		arrival    = oneOf("poisson", "poisson", "constant", "gamma")
		burstiness = number(1)
		maxConc    starlark.Value
	)
	if err := unpack(b.Name(), args, kwargs, "stages", &list, "over?", &over, "start?", &start,
		"arrival?", &arrival, "burstiness?", &burstiness, "max_concurrency??", &maxConc); err != nil {
		return nil, err
	}
	closed := over.value == string(plan.OverConcurrency)
	stages, err := unpackStages(b.Name(), list, closed)
	if err != nil {
		return nil, err
	}
	if err := checkStart(b.Name(), float64(start), closed); err != nil {
		return nil, err
	}
	peak := float64(start)
	var total time.Duration
	for _, s := range stages {
		peak, total = max(peak, s.Target), total+s.Duration
	}
	switch {
	case peak <= 0:
		return nil, paramErrorf(b.Name(), "stages", "every target is 0, want at least one > 0")
	case total <= 0:
		return nil, paramErrorf(b.Name(), "stages", "the stages last 0 s, want a total duration > 0")
	}
	l := plan.Load{Stages: &plan.Stages{Start: float64(start), List: stages}}
	attrs := starlark.StringDict{"over": str(over.value), "start": float(float64(start)),
		"duration": str(plan.DurationText(total)), "stages": stagesAttr(stages)}
	if closed {
		if arg := openLoopArgument(args, kwargs); arg != "" {
			return nil, paramErrorf(b.Name(), arg, `only means something with over="rate", got over="concurrency"`)
		}
		l.Concurrency = int(peak)
		attrs["concurrency"] = integer(l.Concurrency)
		return newStagesValue(l, attrs), nil
	}
	if burstiness <= 0 || burstiness != 1 && arrival.value != "gamma" {
		return nil, paramErrorf(b.Name(), "burstiness", `got %s with arrival=%q, want a number > 0, and arrival="gamma" for anything but 1 (it is its shape)`,
			num(float64(burstiness)), arrival.value)
	}
	capN, err := optionalCount(maxConc)
	if err != nil {
		return nil, paramError(b.Name(), "max_concurrency", err)
	}
	l.Rate, l.Arrival, l.Burstiness, l.MaxConcurrency = peak, plan.Arrival(arrival.value), float64(burstiness), capN
	attrs["rate"], attrs["arrival"], attrs["max_concurrency"] = float(peak), str(arrival.value), noneOr(capN, integer)
	return newStagesValue(l, attrs), nil
}

// newStagesValue is a stages() traffic value: kind "stages", the peak as
// .concurrency or .rate.
func newStagesValue(l plan.Load, attrs starlark.StringDict) *loadValue {
	v := newLoadValue(l, attrs)
	v.attrs["kind"] = str("stages")
	return v
}

// openLoopArgument names an open-loop keyword given to a closed stages().
func openLoopArgument(args starlark.Tuple, kwargs []starlark.Tuple) string {
	if len(args) > 3 {
		return "arrival"
	}
	for _, kv := range kwargs {
		switch k := string(kv[0].(starlark.String)); k {
		case "arrival", "burstiness", "max_concurrency":
			return k
		}
	}
	return ""
}

func checkStart(fn string, start float64, closed bool) error {
	if start < 0 || math.IsNaN(start) || math.IsInf(start, 0) || closed && start != math.Trunc(start) {
		return paramErrorf(fn, "start", "got %s, want a target >= 0 (a whole number of workers under a closed loop)", num(start))
	}
	return nil
}

// unpackStages reads the list of (duration, target[, name]) stages.
func unpackStages(fn string, list *starlark.List, closed bool) ([]plan.Stage, error) {
	if list.Len() == 0 {
		return nil, paramErrorf(fn, "stages", "got an empty list, want [(duration, target), ...]")
	}
	out := make([]plan.Stage, list.Len())
	seen := map[string]int{}
	for i := range list.Len() {
		s, err := unpackStage(list.Index(i), closed)
		if err != nil {
			return nil, paramErrorf(fn, "stages", "at index %d: %v", i, err)
		}
		if j, dup := seen[s.Name]; dup && s.Name != "" {
			return nil, paramErrorf(fn, "stages", "at index %d: name %q is stage %d's already, want names that tell stages apart", i, s.Name, j)
		}
		seen[s.Name] = i
		out[i] = s
	}
	return out, nil
}

// unpackStage reads one (duration, target[, name]) tuple or list.
func unpackStage(v starlark.Value, closed bool) (plan.Stage, error) {
	seq, ok := v.(starlark.Indexable)
	if _, isStr := v.(starlark.String); !ok || isStr || seq.Len() < 2 || seq.Len() > 3 {
		return plan.Stage{}, fmt.Errorf(`got %s, want (duration, target) or (duration, target, name), e.g. ("30s", 100)`, v)
	}
	var d duration
	if err := d.Unpack(seq.Index(0)); err != nil {
		return plan.Stage{}, fmt.Errorf("duration: %v", err)
	}
	var target number
	if err := target.Unpack(seq.Index(1)); err != nil {
		return plan.Stage{}, fmt.Errorf("target: %v", err)
	}
	if t := float64(target); t < 0 || math.IsInf(t, 0) || closed && t != math.Trunc(t) {
		return plan.Stage{}, fmt.Errorf("target: got %s, want a number >= 0 (a whole number of workers under a closed loop)", seq.Index(1))
	}
	s := plan.Stage{Duration: time.Duration(d), Target: float64(target)}
	if seq.Len() == 3 {
		name, ok := starlark.AsString(seq.Index(2))
		if !ok || !validStageName(name) {
			return plan.Stage{}, fmt.Errorf(`name: got %s, want a word of letters, digits, "_", "-" or "." that is not a number (a number selects a stage by index)`, seq.Index(2))
		}
		s.Name = name
	}
	return s, nil
}

// validStageName is a name a gate's "@ stage=NAME" can write and that
// cannot be read as an index.
func validStageName(name string) bool {
	if name == "" {
		return false
	}
	digits := true
	for i := range len(name) {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
		digits = digits && c >= '0' && c <= '9'
	}
	return !digits
}

// stagesAttr is .stages: a list of (duration, target[, name]) tuples as
// given, durations as text.
func stagesAttr(stages []plan.Stage) *starlark.List {
	out := make([]starlark.Value, len(stages))
	for i, s := range stages {
		t := starlark.Tuple{str(plan.DurationText(s.Duration)), float(s.Target)}
		if s.Name != "" {
			t = append(t, str(s.Name))
		}
		out[i] = t
	}
	l := starlark.NewList(out)
	l.Freeze()
	return l
}

// stagedTraffic is the load of a stages() traffic value; nil for anything
// else.
func stagedTraffic(v starlark.Value) *plan.Load {
	if l, ok := v.(*loadValue); ok && l.plan.Staged() {
		return &l.plan
	}
	return nil
}

// stagedCounts refuses what a stages() experiment settles itself: it
// lasts its stages, and has no warm-up (its first stage can be one, and
// gates can skip it with @ stage=).
func (a *experimentArgs) stagedCounts(fn string) error {
	for _, c := range []struct {
		param string
		given bool
	}{{"requests", a.requests != nil}, {"duration", a.length != nil}, {"sessions", a.sessions != nil},
		{"warmup", a.warmup != 0}, {"steady_state", a.steady != nil}} {
		if c.given {
			return paramErrorf(fn, c.param, "a stages() traffic lasts its stages (%s), with no %s: make the first stage a warm-up and gate on the others with \"@ stage=\"",
				plan.DurationText(stagedTraffic(a.traffic).StagesDuration()), c.param)
		}
	}
	return nil
}

// stagesFit refuses a stages() load with what it cannot drive: a sweep
// (its stages are its loads) and conversations (sessions are not staged).
func stagesFit(load *loadValue, data *datasetValue, sweep starlark.Value) error {
	switch {
	case !load.plan.Staged():
		return nil
	case sweep != nil && sweep != starlark.None:
		return fmt.Errorf("a stages() load sets its own loads over time and cannot be swept; drop sweep= or use concurrency()/rate()")
	case data.converses():
		return fmt.Errorf("stages() drives single requests; %s sends conversations: use concurrency() or users()", data.src)
	}
	return nil
}

// stageExists refuses a gate on a stage the traffic does not have: it
// could never be measured.
func stageExists(g metrics.Gate, l plan.Load) error {
	if g.Stage == "" {
		return nil
	}
	if !l.Staged() {
		return fmt.Errorf("gate %q judges stage %s, but the traffic is %s, not stages(...)", g.Source, g.Stage, l)
	}
	if _, ok := l.StageIndex(g.Stage); !ok {
		names := make([]string, len(l.StageList()))
		for i := range names {
			names[i] = strconv.Itoa(i)
			if n := l.StageList()[i].Name; n != "" {
				names[i] += " (" + n + ")"
			}
		}
		return fmt.Errorf("gate %q judges stage %s, but the traffic's stages are %s", g.Source, g.Stage, strings.Join(names, ", "))
	}
	return nil
}

// stageValues is a stages() point's per-stage metrics in stage order
// (p.stages[1].ttft.p99; each with .index, .name, .label, .target): an
// empty list for any other load.
func stageValues(exp *plan.Experiment, pr *runtime.PointResult) *starlark.List {
	var stages []runtime.StageSummary
	if pr.Outcome != nil {
		stages = pr.Outcome.Stages
	}
	out := make([]starlark.Value, len(stages))
	for i := range stages {
		st := &stages[i]
		attrs := starlark.StringDict{"index": integer(st.Index), "name": noneOr(st.Name, str), "label": str(st.Label), "target": float(st.Target)}
		addMetrics(attrs, metrics.RunData{Summary: &st.Summary, CostPerHour: exp.CostPerHour})
		out[i] = newObjectValue("stage", "stage("+quote(st.Label)+")", attrs)
	}
	l := starlark.NewList(out)
	l.Freeze()
	return l
}
