// Package verdict reports a scenario's gate results for people (console
// ✓/✗ lines, a Markdown summary for CI pages) and for programs (gates.json,
// JUnit XML with one testcase per gate), each a reports.Reporter. It also
// owns how a baseline gate's comparison and a relative interval are
// written (GateComparison, Interval), which compare.json and report.html
// word the same way.
package verdict

import (
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// Verdict is one gate judged at one point, or one failure of check().
type Verdict struct {
	Experiment string `json:"experiment"`
	// Point is the point label ("concurrency16"); empty for check().
	Point string `json:"point,omitempty"`
	// Gate is the gate as written, or "check()".
	Gate   string `json:"gate"`
	Passed bool   `json:"passed"`
	// Measured is in report units (ms for times, % for error_rate),
	// absent when the metric could not be measured.
	Measured *float64 `json:"measured,omitempty"`
	// Message says what was measured against what limit, or why it failed.
	Message string `json:"message"`
	// Baseline is the gate's statistic in the baseline's same point, in
	// report units; absent without a baseline.
	Baseline *float64 `json:"baseline,omitempty"`
	// Comparison is a baseline gate's judgement against the baseline.
	Comparison *GateComparison `json:"comparison,omitempty"`
	// Skipped says why a baseline gate was not judged: no baseline, under
	// --allow-missing-baseline. It then counts as passed.
	Skipped string `json:"skipped,omitempty"`
	// Warning marks a pass the reader should doubt: an inconclusive
	// baseline comparison.
	Warning string `json:"warning,omitempty"`
	// Seconds is how long the point the gate was judged at ran (JUnit's
	// testcase time); 0 for check().
	Seconds float64 `json:"-"`
}

// Report is a scenario's verdicts with what a reader must know to trust
// them: whether the run was cut short and what became of check().
type Report struct {
	Scenario string
	Verdicts []Verdict
	// Partial marks a run interrupted before every point finished: the
	// verdicts judge what was measured, not the whole scenario.
	Partial bool
	// Check is what became of the scenario's check(results).
	Check CheckState
}

// CheckState is what became of check(results).
type CheckState string

// The check() states, as every report words them.
const (
	CheckNotDefined CheckState = "not defined"
	CheckPassed     CheckState = "passed"
	CheckFailed     CheckState = "failed"
	// CheckNotRun: the run was interrupted or failed before check() could
	// see every result.
	CheckNotRun CheckState = "not run"
)

// Failed counts the report's failed verdicts.
func (r *Report) Failed() int { return Failed(r.Verdicts) }

// Status is the report's one-line verdict, partial runs said so.
func (r *Report) Status() string {
	s := "all gates passed"
	if n := r.Failed(); n > 0 {
		s = fmt.Sprintf("%d of %s failed", n, Plural(len(r.Verdicts), "gate"))
	}
	if n := Skipped(r.Verdicts); n > 0 {
		s += fmt.Sprintf(" (%d skipped: no baseline)", n)
	}
	if r.Partial {
		s += " (partial: the run was interrupted; only the points measured were judged)"
	}
	return s
}

// CheckGate names check() failures among the verdicts.
const CheckGate = "check()"

// Collect turns experiment results into verdicts, in run order. A gate
// whose `@` condition matched no point fails: it was meant to hold
// somewhere and was never tested.
func Collect(results []runtime.ExperimentResult) []Verdict {
	var out []Verdict
	for _, er := range results {
		matched := map[string]bool{}
		for _, p := range er.Points {
			for _, g := range p.Gates {
				matched[g.Gate.Source] = true
				v := fromGate(er.Experiment.Name, p.Params.Label(), g)
				if p.Outcome != nil {
					v.Seconds = float64(p.Outcome.Summary.Duration) / 1e9
					warnSimulated(&v, g, p.Outcome.Telemetry)
				}
				out = append(out, v)
			}
		}
		for _, g := range er.Experiment.Gates {
			if !matched[g.Source] {
				out = append(out, Verdict{Experiment: er.Experiment.Name, Gate: g.Source,
					Message: "no measured point matches " + conditions(g)})
			}
		}
	}
	return out
}

func fromGate(experiment, point string, g runtime.GateResult) Verdict {
	v := Verdict{Experiment: experiment, Point: point, Gate: g.Gate.Source, Passed: g.Passed}
	switch {
	case g.Err != nil:
		v.Message = g.Err.Error()
	case g.Skipped == "":
		v.Message = g.Gate.Describe(g.Measured)
		m := g.Gate.InReportUnits(g.Measured)
		v.Measured = &m
	}
	withBaseline(&v, g)
	return v
}

// simulatedWarning is the warning of a gate judged on figures the
// simulator made up (its GPU, its server metrics).
const simulatedWarning = "judged on the simulator's made-up telemetry, not on a measurement"

// warnSimulated marks a telemetry gate judged on simulated figures: it
// passes or fails as written, but no reader may take its value for a
// measured GPU or server (SPEC §8: simulated figures are labelled
// everywhere they appear). A warning of its own kind already set (an
// inconclusive baseline) is kept and this one joined to it.
func warnSimulated(v *Verdict, g runtime.GateResult, t *runtime.PointTelemetry) {
	if t == nil || !t.Summary.Simulated || g.Gate.Needs() != metrics.NeedTelemetry || g.Err != nil || g.Skipped != "" {
		return
	}
	if v.Warning != "" {
		v.Warning += "; " + simulatedWarning
		return
	}
	v.Warning = simulatedWarning
}

func conditions(g metrics.Gate) string {
	if len(g.At) == 0 && g.Component == "" && g.Stage == "" {
		return "(every point)"
	}
	var parts []string
	for _, c := range g.At {
		parts = append(parts, fmt.Sprintf("%s=%g", c.Param, c.Value))
	}
	if g.Component != "" {
		parts = append(parts, "component="+g.Component)
	}
	if g.Stage != "" {
		parts = append(parts, "stage="+g.Stage)
	}
	return "@ " + strings.Join(parts, ", ")
}

// CheckCrash is the verdict of a check() that raised an error instead of
// judging: a failure, so no CI reads a crashed check as passed.
func CheckCrash(err error) Verdict {
	return Verdict{Gate: CheckGate, Message: "check() did not finish: " + err.Error()}
}

// CheckFailures turns the messages of check()'s fail() calls into verdicts.
func CheckFailures(messages []string) []Verdict {
	out := make([]Verdict, len(messages))
	for i, m := range messages {
		out[i] = Verdict{Gate: CheckGate, Message: m}
	}
	return out
}

// Failed counts the failed verdicts.
func Failed(vs []Verdict) int {
	n := 0
	for _, v := range vs {
		if !v.Passed {
			n++
		}
	}
	return n
}

// Skipped counts the verdicts of baseline gates left unjudged.
func Skipped(vs []Verdict) int {
	n := 0
	for _, v := range vs {
		if v.Skipped != "" {
			n++
		}
	}
	return n
}
