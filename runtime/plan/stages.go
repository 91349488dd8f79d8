package plan

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// Stage is one stage of a stages() load (k6's stages): over Duration the
// load's target — the concurrency of a closed loop, the request rate of an
// open one — moves linearly from where the previous stage left it (the
// start, for the first) to Target. A stage of 0 s jumps; one whose target
// equals the previous holds.
type Stage struct {
	// Name, when given, lets a gate select the stage ("@ stage=hold");
	// otherwise it is selected by its index.
	Name     string        `json:"name,omitempty"`
	Duration time.Duration `json:"duration"`
	Target   float64       `json:"target"`
}

// Stages is a stages() load's profile: from Start, the target moves
// through each stage of List in turn.
type Stages struct {
	Start float64 `json:"start,omitempty"`
	List  []Stage `json:"list"`
}

// Over is what a stages() load's targets count.
type Over string

// The two things a stage's target can count.
const (
	OverConcurrency Over = "concurrency"
	OverRate        Over = "rate"
)

// Staged reports whether the load is a stages() load: its stages are
// reported apart as well as the whole, and it ends with its last stage.
func (l Load) Staged() bool { return l.Stages != nil && len(l.Stages.List) > 0 }

// StagesDuration is the stages' total length, the point's duration.
func (l Load) StagesDuration() time.Duration {
	var d time.Duration
	for _, s := range l.StageList() {
		d += s.Duration
	}
	return d
}

// Profile is the load's target over time as one concept: the stages()
// given, or ramp_up=R as the single stage (R, full load) from 0 held
// until the stop condition (hold); nil stages for a load that is at its
// full target from the start. The engine plans both the same way.
func (l Load) Profile() (start float64, stages []Stage, hold bool) {
	switch {
	case l.Staged():
		return l.Stages.Start, l.Stages.List, false
	case l.RampUp > 0 && l.Closed():
		return 0, []Stage{{Duration: l.RampUp, Target: float64(l.Concurrency)}}, true
	case l.RampUp > 0:
		return 0, []Stage{{Duration: l.RampUp, Target: l.Rate}}, true
	}
	return 0, nil, true
}

// StageIndex resolves a gate's stage selector — a stage's name, or its
// index 0, 1, ... — to the index; false when the load has no such stage.
func (l Load) StageIndex(sel string) (int, bool) {
	list := l.StageList()
	for i, s := range list {
		if s.Name != "" && s.Name == sel {
			return i, true
		}
	}
	i, err := strconv.Atoi(sel)
	if err != nil || i < 0 || i >= len(list) || strconv.Itoa(i) != sel {
		return 0, false
	}
	return i, true
}

// StageLabel names stage i as reports show it: its name, or "stage i".
func (l Load) StageLabel(i int) string {
	if list := l.StageList(); i < len(list) && list[i].Name != "" {
		return list[i].Name
	}
	return "stage " + strconv.Itoa(i)
}

// stagesString renders a stages() load as the call that declares it.
func (l Load) stagesString() string {
	list := l.StageList()
	parts := make([]string, len(list))
	for i, s := range list {
		name := ""
		if s.Name != "" {
			name = ", " + strconv.Quote(s.Name)
		}
		parts[i] = fmt.Sprintf("(%q, %s%s)", DurationText(s.Duration), Num(s.Target), name)
	}
	args := []string{"[" + strings.Join(parts, ", ") + "]", "over=" + strconv.Quote(string(l.StagesOver()))}
	if l.Stages.Start != 0 {
		args = append(args, "start="+Num(l.Stages.Start))
	}
	if !l.Closed() {
		args = append(args, "arrival="+strconv.Quote(string(l.Arrival)))
		if l.Arrival == Gamma || l.Burstiness != 1 {
			args = append(args, "burstiness="+Num(l.Burstiness))
		}
		if l.MaxConcurrency > 0 {
			args = append(args, "max_concurrency="+strconv.Itoa(l.MaxConcurrency))
		}
	}
	return "stages(" + strings.Join(args, ", ") + ")"
}

// StagesOver is what the stages' targets count: a closed loop's
// concurrency or an open loop's rate.
func (l Load) StagesOver() Over {
	if l.Closed() {
		return OverConcurrency
	}
	return OverRate
}

// StageList is a stages() load's stages; nil for any other load.
func (l Load) StageList() []Stage {
	if l.Stages == nil {
		return nil
	}
	return l.Stages.List
}

// StageSlack is how close to a stage's end a request counts as at the end
// (so in the next stage, or not sent after the last): open-loop offsets
// are float sums of gaps (0.05 s summed 90 times falls short of 4.5 s by
// a few ulps), and the arrival whose expected count is a stage's whole
// ∫rate is due exactly at its end.
const StageSlack = time.Microsecond

// StageOf is the stage a request of this stages() load was sent in, its
// first stage having started at from (ns, the records' clock): by its
// planned send in an open loop, its send in a closed loop (its completion
// when it never went out). The run stamps it so, and a stored run's
// records are read back so, from the same times.
func (l Load) StageOf(r *metrics.Record, from int64) int {
	at := r.Scheduled
	if at == 0 {
		at = r.Sent
	}
	if at == 0 {
		at = r.Done
	}
	return l.StageAt(time.Duration(at - from))
}

// StageAt is the index of the stage offset falls in (a stage's start
// belongs to it, to within StageSlack); the last for an offset at or past
// the end.
func (l Load) StageAt(offset time.Duration) int {
	var end time.Duration
	list := l.StageList()
	for i, s := range list {
		end += s.Duration
		if offset < end-StageSlack {
			return i
		}
	}
	return len(list) - 1
}
