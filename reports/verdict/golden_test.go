package verdict

import (
	"bytes"
	"testing"

	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/reports/internal/golden"
)

// goldenVerdicts is every kind of verdict line: passed, failed, a point
// with no match, a pass in doubt, a skipped baseline gate and a check()
// failure, in a partial run whose check() failed.
func goldenVerdicts(t *testing.T) *Report {
	vs := Collect(results(t))
	vs[0].Seconds = 12.5
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
