// Package verdict reports a scenario's gate results for people (console
// ✓/✗ lines, a Markdown summary for CI pages) and for programs (gates.json,
// JUnit XML with one testcase per gate).
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
				out = append(out, fromGate(er.Experiment.Name, p.Params.Label(), g))
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
	if g.Err != nil {
		v.Message = g.Err.Error()
		return v
	}
	v.Message = g.Gate.Describe(g.Measured)
	m := reportUnits(g.Gate, g.Measured)
	v.Measured = &m
	return v
}

// reportUnits converts a native value to what reports print: ms for
// times, % for error_rate.
func reportUnits(g metrics.Gate, native float64) float64 {
	switch g.Metric {
	case "ttft", "ttst", "itl", "request_latency", "ttfo", "schedule_lag", "chunk_gap":
		return native / 1e6
	case "error_rate":
		return native * 100
	}
	return native
}

func conditions(g metrics.Gate) string {
	if len(g.At) == 0 {
		return "(every point)"
	}
	parts := make([]string, len(g.At))
	for i, c := range g.At {
		parts[i] = fmt.Sprintf("%s=%g", c.Param, c.Value)
	}
	return "@ " + strings.Join(parts, ", ")
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
