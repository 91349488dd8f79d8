package comparison

import (
	"fmt"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/reports/verdict"
)

// JUnit is the comparison as JUnit XML through the gate verdicts'
// writer: one test case per point and metric, failed for a regression
// (and, when strict, for an inconclusive result), so a CI system shows
// which metric regressed. An informational metric's case never fails and
// its name says it is informational.
func JUnit(r *Report, strict bool) reports.Reporter {
	rep := &verdict.Report{Scenario: "llmbench compare " + r.Baseline + " " + r.Candidate, Check: verdict.CheckNotDefined}
	for _, p := range r.Points {
		for _, c := range p.Metrics {
			failed := !c.Informational && (c.Verdict == metrics.VerdictRegression || strict && c.Verdict == metrics.VerdictInconclusive)
			experiment := p.Experiment
			if experiment == "" { // a profile point: its label is what tells cases apart
				experiment = p.Label
			}
			name := c.Metric
			if c.Informational {
				name += " (informational: fails nothing)"
			}
			rep.Verdicts = append(rep.Verdicts, verdict.Verdict{Experiment: experiment, Point: p.Label, Gate: name,
				Passed: !failed, Message: fmt.Sprintf("%s: %s → %s, change %s %s (tolerance %s)%s", c.Verdict,
					value(c.Metric, c.Baseline), value(c.Metric, c.Candidate), change(c.Interval.Ratio), bounds(c),
					Percent(c.Tolerance), qualifiers(c))})
		}
	}
	return verdict.JUnit(rep)
}
