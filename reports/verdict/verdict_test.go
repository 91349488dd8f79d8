package verdict

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"math"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

func mustGate(t *testing.T, s string) metrics.Gate {
	t.Helper()
	g, err := metrics.ParseGate(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// results builds a two-point experiment: TTFT p99 400 ms at concurrency 1
// and 700 ms at 16, with one failed request out of 100 at 16.
func results(t *testing.T) []runtime.ExperimentResult {
	exp := &plan.Experiment{Name: "chat", Gates: []metrics.Gate{
		mustGate(t, "ttft.p99 < 500ms"), mustGate(t, "error_rate < 1%"),
		mustGate(t, "ttft.p99 < 900ms @ concurrency=16"), mustGate(t, "itl.p50 < 10ms @ concurrency=64"),
	}}
	point := func(c float64, p99 float64, failed int) runtime.PointResult {
		sum := metrics.Summary{TimeToFirstToken: &metrics.Distribution{Count: 100, P99: p99 * 1e6},
			Completed: 100 - failed, Failed: failed, ErrorRate: float64(failed) / 100}
		params := plan.Params{"concurrency": c}
		out := &runtime.Outcome{Summary: sum}
		return runtime.PointResult{Params: params,
			Outcome: out, Gates: runtime.EvaluateGates(exp, nil, params, out)}
	}
	return []runtime.ExperimentResult{{Experiment: exp, Points: []runtime.PointResult{point(1, 400, 0), point(16, 700, 1)}}}
}

func TestCollect(t *testing.T) {
	vs := Collect(results(t))
	var got []string
	for _, v := range vs {
		mark := "pass"
		if !v.Passed {
			mark = "FAIL"
		}
		got = append(got, mark+" "+v.Gate+" "+v.Point+": "+v.Message)
	}
	want := []string{
		"pass ttft.p99 < 500ms concurrency1: ttft.p99 = 400.00 ms, limit < 500 ms",
		"pass error_rate < 1% concurrency1: error_rate = 0.00%, limit < 1%",
		"FAIL ttft.p99 < 500ms concurrency16: ttft.p99 = 700.00 ms, limit < 500 ms",
		"FAIL error_rate < 1% concurrency16: error_rate = 1.00%, limit < 1%",
		"pass ttft.p99 < 900ms @ concurrency=16 concurrency16: ttft.p99 = 700.00 ms, limit < 900 ms",
		"FAIL itl.p50 < 10ms @ concurrency=64 : no measured point matches @ concurrency=64",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("verdicts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWriters(t *testing.T) {
	res := results(t)
	vs := append(Collect(res), CheckFailures([]string{"capacity regressed: knee at concurrency 4"})...)
	rep := &Report{Scenario: "scenario", Verdicts: vs, Check: CheckFailed}

	var console bytes.Buffer
	if err := Console(rep)(&console); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  ✗ ttft.p99 < 500ms [chat/concurrency16]: ttft.p99 = 700.00 ms, limit < 500 ms\n",
		"  ✓ error_rate < 1% [chat/concurrency1]", "  ✗ check(): capacity regressed", "check(): failed\n", "3 of 7 gates passed\n"} {
		if !strings.Contains(console.String(), want) {
			t.Errorf("console lacks %q:\n%s", want, console.String())
		}
	}

	var js bytes.Buffer
	if err := JSON(rep)(&js); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Passed   bool
		Total    int
		Failed   int
		Verdicts []Verdict
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Passed || doc.Total != 7 || doc.Failed != 4 || *doc.Verdicts[2].Measured != 700 {
		t.Errorf("gates.json = %+v", doc)
	}
	if !strings.Contains(js.String(), `"gate": "ttft.p99 < 500ms"`) || !strings.Contains(js.String(), `"check": "failed"`) {
		t.Errorf("gates.json escapes gates or lacks check():\n%s", js.String())
	}

	var junit bytes.Buffer
	if err := JUnit(rep)(&junit); err != nil {
		t.Fatal(err)
	}
	var suites junitSuites
	if err := xml.Unmarshal(junit.Bytes(), &suites); err != nil {
		t.Fatalf("JUnit XML does not parse: %v\n%s", err, junit.String())
	}
	if suites.Tests != 7 || suites.Failures != 4 || len(suites.Suites[0].Cases) != 7 {
		t.Errorf("junit counts: %+v", suites)
	}
	failure := suites.Suites[0].Cases[2].Failure
	if failure == nil || failure.Message != "ttft.p99 = 700.00 ms, limit < 500 ms" {
		t.Errorf("junit failure = %+v", failure)
	}
	cases := suites.Suites[0].Cases
	if last := cases[len(cases)-1]; last.Classname != "scenario.check" || last.Time != "0.000" || cases[0].Time == "" || suites.Time == "" {
		t.Errorf("junit classname/time: %+v, suite time %q", last, suites.Time)
	}

	var md bytes.Buffer
	if err := Markdown(res, rep)(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"❌ 4 of 7 gates failed", "check(): failed", "| concurrency16 | 99 | 1 (1.00%) | 0.00 | 700.00 | – |", "- ❌ `check()`"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

// An interrupted run says "partial" in every verdict file.
func TestWritersSayPartial(t *testing.T) {
	rep := &Report{Scenario: "s", Verdicts: Collect(results(t)), Partial: true, Check: CheckNotRun}
	var console, js, junit, md bytes.Buffer
	for _, err := range []error{Console(rep)(&console), JSON(rep)(&js), JUnit(rep)(&junit), Markdown(results(t), rep)(&md)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range map[string]struct{ got, want string }{
		"console":  {console.String(), "PARTIAL: the run was interrupted"},
		"json":     {js.String(), `"partial": true`},
		"junit":    {junit.String(), `<property name="partial" value="true">`},
		"markdown": {md.String(), "**Partial run**"},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s lacks %q:\n%s", name, c.want, c.got)
		}
	}
}

// A telemetry gate judged on the simulator's made-up GPU is marked, on
// every writer (console, gates.json, Markdown, report.html read the
// Warning); the same gate on real telemetry, and a latency gate beside
// it, are not. Before, the line read like a measured 300 W.
func TestSimulatedTelemetryGateIsMarked(t *testing.T) {
	exp := &plan.Experiment{Name: "chat", Gates: []metrics.Gate{
		mustGate(t, "gpu_power.avg < 500"), mustGate(t, "ttft.p99 < 500ms"),
	}}
	point := func(simulated bool) runtime.PointResult {
		out := &runtime.Outcome{Summary: metrics.Summary{TimeToFirstToken: &metrics.Distribution{Count: 10, P99: 4e8}, Completed: 10}}
		out.Telemetry = &runtime.PointTelemetry{Summary: metrics.TelemetrySummary{
			Simulated: simulated, Power: &metrics.Distribution{Count: 3, Avg: 300}}}
		params := plan.Params{"concurrency": 1}
		return runtime.PointResult{Params: params, Outcome: out, Gates: runtime.EvaluateGates(exp, nil, params, out)}
	}
	for _, simulated := range []bool{true, false} {
		vs := Collect([]runtime.ExperimentResult{{Experiment: exp, Points: []runtime.PointResult{point(simulated)}}})
		if len(vs) != 2 || !vs[0].Passed || !vs[1].Passed {
			t.Fatalf("simulated=%v: verdicts %+v", simulated, vs)
		}
		if got := vs[0].Warning; (got == simulatedWarning) != simulated {
			t.Errorf("simulated=%v: gpu_power warning %q", simulated, got)
		}
		if vs[1].Warning != "" {
			t.Errorf("simulated=%v: a latency gate is measured by the client, yet warned %q", simulated, vs[1].Warning)
		}
	}
}

// One of a thing reads in the singular wherever a count is printed:
// "1 of 1 gate failed", not "1 of 1 gates failed" (nor "1 regressions").
func TestCountsOfOneAreSingular(t *testing.T) {
	for n, want := range map[int]string{0: "0 regressions", 1: "1 regression", 2: "2 regressions"} {
		if got := Plural(n, "regression"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
	rep := &Report{Scenario: "s", Verdicts: []Verdict{{Experiment: "e", Gate: "ttft.p99 < 1s", Message: "ttft.p99 = 2 s"}}}
	var console bytes.Buffer
	if err := Console(rep)(&console); err != nil {
		t.Fatal(err)
	}
	if got := rep.Status(); got != "1 of 1 gate failed" {
		t.Errorf("status %q, want %q", got, "1 of 1 gate failed")
	}
	if !strings.Contains(console.String(), "0 of 1 gate passed\n") {
		t.Errorf("console:\n%s", console.String())
	}
}

// A judged baseline gate says on every writer what the verdict rests on:
// its one-sided bounds, a missing bound and why, the minimum detectable
// change and the family adjustment that changed it; gates.json carries
// each as a field of its own.
func TestJudgementOnEveryGateWriter(t *testing.T) {
	rep := &Report{Scenario: "s", Verdicts: judgedGates(t)}
	var console, md, junit, js bytes.Buffer
	for _, err := range []error{Console(rep)(&console), Markdown(nil, rep)(&md), JUnit(rep)(&junit), JSON(rep)(&js)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, got := range map[string]string{"console": console.String(), "markdown": md.String(), "junit": junit.String(), "gates.json": js.String()} {
		for _, want := range []string{"regression → inconclusive after Holm over 4 gates", "[≥ +14.1%, ≤ +15.6%]",
			"[≥ +10.4%, no upper bound (only 3 requests above p99)]", "detects ≥ 2.1%", "detects ≥ 60.0%"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, got)
			}
		}
	}
	var doc struct{ Verdicts []Verdict }
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Verdicts[1].Comparison
	if c == nil || c.MDC != 0.6 || c.Adjustment == "" || c.Unbounded != "only 3 requests above p99" || c.BaselineRuns != 5 ||
		c.CandidateRuns != 1 || c.Informational || !math.IsInf(float64(c.Interval[1]), 1) || math.Abs(float64(c.Interval[0])-0.104) > 1e-9 {
		t.Errorf("gates.json comparison read back: %+v", c)
	}
}
