package verdict

import (
	"bytes"
	"math"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/reports/internal/golden"
	"github.com/llmbench/llmbench/runtime"
)

// goldenVerdicts is every kind of verdict line: passed, failed, a point
// with no match, a pass in doubt, a skipped baseline gate, two judged
// baseline gates (a regression, and an inconclusive pass the family
// adjustment made so, its upper bound missing) and a check() failure, in
// a partial run whose check() failed.
func goldenVerdicts(t *testing.T) *Report {
	vs := Collect(results(t))
	vs[0].Seconds = 12.5
	vs = append(vs, judgedGates(t)...)
	vs = append(vs,
		Verdict{Experiment: "chat", Point: "concurrency1", Gate: "ttft.p99 < baseline * 1.1", Passed: true,
			Message: "ttft.p99 = 400.00 ms, baseline 390.00 ms", Warning: "inconclusive: the interval spans the tolerance"},
		Verdict{Experiment: "chat", Point: "concurrency16", Gate: "itl.p99 < baseline * 1.1", Passed: true,
			Message: "not judged", Skipped: "no baseline"})
	vs = append(vs, CheckFailures([]string{"capacity regressed: knee at concurrency 4"})...)
	return &Report{Scenario: "scenario", Verdicts: vs, Check: CheckFailed, Partial: true}
}

// Every verdict file and the console block, byte for byte.
func TestVerdictGolden(t *testing.T) {
	rep := goldenVerdicts(t)
	for name, write := range map[string]reports.Reporter{
		"console.txt": Console(rep),
		"gates.json":  JSON(rep),
		"junit.xml":   JUnit(rep),
		"summary.md":  Markdown(results(t), rep),
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, name, b.Bytes())
	}
}

// judgedGates are two baseline gates judged by hand as the judge would:
// itl.p50 14.8% slower, a regression; ttft.p99 whose regression Holm over
// the point's 4 gates made inconclusive, with no upper bound (and why).
func judgedGates(t *testing.T) []Verdict {
	t.Helper()
	itl, ttft := 8.02e6, 390e6
	regression := runtime.GateResult{Gate: mustGate(t, "itl.p50 <= baseline * 1.1"), Measured: 9.21e6, Baseline: &itl,
		Comparison: &metrics.Comparison{Metric: "itl.p50", Direction: metrics.LowerIsBetter, Baseline: itl, Candidate: 9.21e6,
			Interval:  metrics.RatioInterval{Method: metrics.MethodBlockBootstrap, Ratio: 1.148, Low: 1.141, High: 1.156, Confidence: 0.95},
			Tolerance: 0.1, Verdict: metrics.VerdictRegression, PRegression: 0.001, MDC: 0.021, BaselineRuns: 5, CandidateRuns: 1}}
	adjusted := runtime.GateResult{Gate: mustGate(t, "ttft.p99 <= baseline * 1.1"), Measured: 460e6, Passed: true, Baseline: &ttft,
		Comparison: &metrics.Comparison{Metric: "ttft.p99", Direction: metrics.LowerIsBetter, Baseline: ttft, Candidate: 460e6,
			Interval:  metrics.RatioInterval{Method: metrics.MethodBlockBootstrap, Ratio: 1.179, Low: 1.104, High: math.Inf(1), Confidence: 0.95},
			Tolerance: 0.1, Verdict: metrics.VerdictInconclusive, PRegression: 0.04, MDC: 0.6, BaselineRuns: 5, CandidateRuns: 1,
			Adjustment: "regression → inconclusive after Holm over 4 gates", Unbounded: "only 3 requests above p99"}}
	return []Verdict{fromGate("chat", "concurrency4", regression), fromGate("chat", "concurrency4", adjusted)}
}
