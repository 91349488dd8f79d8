package comparison

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// report compares ttft.p99 of repeats 15% slower (a regression) and
// request_throughput of identical repeats (no change), judged by hand as
// the judge would: one-sided bounds, the minimum detectable change, three
// runs a side.
func report(t *testing.T) *Report {
	t.Helper()
	slow := metrics.Comparison{Metric: "ttft.p99", Direction: metrics.LowerIsBetter, Baseline: 100e6, Candidate: 115e6,
		Interval: metrics.RatioInterval{Method: metrics.MethodRuns, Baseline: 100e6, Candidate: 115e6, Ratio: 1.15,
			Low: 1.137, High: 1.163, Confidence: 0.95},
		Tolerance: 0.1, Verdict: metrics.VerdictRegression, PRegression: 0.0004, MDC: 0.023, BaselineRuns: 3, CandidateRuns: 3}
	same := metrics.Comparison{Metric: "request_throughput", Direction: metrics.HigherIsBetter, Baseline: 10, Candidate: 10,
		Interval: metrics.RatioInterval{Method: metrics.MethodRuns, Baseline: 10, Candidate: 10, Ratio: 1,
			Low: 0.956, High: 1.046, Confidence: 0.95},
		Tolerance: 0.1, Verdict: metrics.VerdictNoChange, PRegression: 1, MDC: 0.061, BaselineRuns: 3, CandidateRuns: 3}
	return &Report{Baseline: "base", Candidate: "cand", Tolerance: 0.1, Confidence: 0.95,
		Points: []Point{{Experiment: "e", Label: "concurrency8", Metrics: []metrics.Comparison{same, slow}}}}
}

func TestWritersShowTheRegressionFirst(t *testing.T) {
	r := report(t)
	var table, md, js bytes.Buffer
	if err := Table(r)(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"== e/concurrency8 ==", "ttft.p99 100.00 ms 115.00 ms +15.0%", "regression (tolerance 10%); detects ≥ 2.3%",
		"1 regression: e/concurrency8 ttft.p99 +15.0%"} {
		if !strings.Contains(strings.Join(strings.Fields(table.String()), " "), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	if err := Markdown(r)(&md); err != nil {
		t.Fatal(err)
	}
	if s := md.String(); !strings.HasPrefix(s, "### ❌") || strings.Index(s, "ttft.p99") > strings.Index(s, "request_throughput") {
		t.Errorf("markdown does not lead with the regression:\n%s", s)
	}
	if err := JSON(r)(&js); err != nil {
		t.Fatal(err)
	}
	f, err := ReadJSON(bytes.NewReader(js.Bytes()))
	if err != nil || f.Regressions != 1 || len(f.Points) != 1 {
		t.Fatalf("compare.json (%v): %s", err, js.String())
	}
	for _, schema := range []string{`{"schema": 1}`, `{"schema": 3}`} {
		if _, err := ReadJSON(strings.NewReader(schema)); err == nil {
			t.Errorf("compare.json of another schema was read: %s", schema)
		}
	}
	m := f.Points[0].Metrics[1]
	if m.Metric != "ttft.p99" || m.Unit != "ms" || m.Baseline != 100 || m.Verdict != "regression" || m.Interval[0] <= 0.1 {
		t.Errorf("ttft.p99 in compare.json: %+v", m)
	}
}

// A metric that was 0 in the baseline (error_rate of a clean run against
// a candidate whose server started failing) changes by +Inf: compare.json
// writes that change as null, as it writes an unbounded interval, instead
// of failing the whole file ("json: unsupported value: +Inf", exit 3
// where the gates said 1).
func TestJSONHoldsAnInfiniteChange(t *testing.T) {
	clean, failing := make([]float64, 60), make([]float64, 60)
	for i := range failing {
		failing[i] = float64(i % 5 / 4) // one request in five failed
	}
	c, err := judgedAlone(t, "error_rate", metrics.Sample{Values: clean}, metrics.Sample{Values: failing})
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{Baseline: "base", Candidate: "cand", Points: []Point{{Label: "concurrency8", Metrics: []metrics.Comparison{c}}}}
	var js bytes.Buffer
	if err := JSON(r)(&js); err != nil {
		t.Fatalf("compare.json of a change from 0: %v (ratio %v)", err, c.Interval.Ratio)
	}
	f, err := ReadJSON(bytes.NewReader(js.Bytes()))
	if err != nil || !strings.Contains(js.String(), `"change": null`) || !math.IsInf(float64(f.Points[0].Metrics[0].Change), 1) {
		t.Errorf("compare.json (%v):\n%s", err, js.String())
	}
}

// One regression and one improvement read in the singular.
func TestHeadlineCountsOfOneAreSingular(t *testing.T) {
	r := report(t)
	if got := Headline(r); !strings.HasPrefix(got, "1 regression: ") {
		t.Errorf("headline %q, want it to start %q", got, "1 regression: ")
	}
	r.Points[0].Metrics[1].Verdict = metrics.VerdictImprovement
	if got := Headline(r); !strings.Contains(got, "(1 improvement, 0 inconclusive, 0 within tolerance, 1 no significant change)") {
		t.Errorf("headline %q", got)
	}
}

// The pull-request comment names the runs without a runner's absolute
// paths (relative to the working directory, else by base name) and shows
// each metric's own tolerance, not the report's default: before, it read
// "Baseline `/home/runner/...`" and "tolerance 10%" for an itl.p99 judged
// at 5%.
func TestMarkdownShowsNoAbsolutePathAndEachTolerance(t *testing.T) {
	r := report(t)
	r.Baseline, r.Candidate = "/tmp/ci-1234/baseline/main-5", "/home/runner/work/repo/results"
	r.Points[0].Metrics[1].Tolerance = 0.05
	var b strings.Builder
	if err := writeMarkdown(&b, r, "/home/runner/work/repo"); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, bad := range []string{"/tmp", "/home", "tolerance 10%"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown shows %q:\n%s", bad, md)
		}
	}
	for _, want := range []string{"Baseline `main-5`, candidate `results`", "| ttft.p99 | 100.00 ms | 115.00 ms | +15.0% | [≥ +13.7%, ≤ +16.3%] | 5% | ≥ 2.3% |",
		"| request_throughput | 10.00 requests/s | 10.00 requests/s | +0.0% | [≥ -4.4%, ≤ +4.6%] | 10% |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	for path, want := range map[string]string{"/home/runner/work/repo/runs/pr": "runs/pr", "runs/pr/": "runs/pr", ".": ".",
		"/home/runner/work/other": "other", "../base": "base", "/": "/"} {
		if got := shownPath(path, "/home/runner/work/repo"); got != want {
			t.Errorf("shownPath(%q) = %q, want %q", path, got, want)
		}
	}
}

// An informational metric is shown apart from the gated ones, under a
// label saying it fails nothing, and fails nothing: not in the headline's
// count, compare.json's or JUnit's failures, even as a regression.
func TestInformationalMetricIsApartAndFailsNothing(t *testing.T) {
	r := report(t)
	info := r.Points[0].Metrics[1] // ttft.p99, a regression
	info.Metric, info.Informational = "request_latency.p99", true
	r.Points[0].Metrics = append(r.Points[0].Metrics, info)
	var table, md, junit, js bytes.Buffer
	for _, err := range []error{Table(r)(&table), Markdown(r)(&md), JUnit(r, true)(&junit), JSON(r)(&js)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, got := range map[string]string{"table": table.String(), "markdown": md.String()} {
		label := strings.Index(got, "Informational (judged apart from the gated metrics; fails nothing)")
		if label < 0 || strings.Index(got, "request_latency.p99") < label || strings.Index(got, "ttft.p99") > label {
			t.Errorf("%s does not show request_latency.p99 apart, under its label:\n%s", name, got)
		}
	}
	if len(r.Regressions()) != 1 || !strings.HasPrefix(Headline(r), "1 regression: e/concurrency8 ttft.p99") {
		t.Errorf("headline counts the informational metric: %q", Headline(r))
	}
	if !strings.Contains(junit.String(), `failures="1"`) || !strings.Contains(junit.String(), "request_latency.p99 (informational: fails nothing)") {
		t.Errorf("junit:\n%s", junit.String())
	}
	f, err := ReadJSON(&js)
	if err != nil || f.Regressions != 1 || !f.Points[0].Metrics[2].Informational {
		t.Errorf("compare.json (%v): %+v", err, f)
	}
}

// A family adjustment that changed a verdict is said wherever the
// verdict is: console table, Markdown, JUnit and compare.json.
func TestAdjustmentShownWhereverTheVerdictIs(t *testing.T) {
	r := report(t)
	const adj = "regression → inconclusive after Holm over 4 gates"
	r.Points[0].Metrics[1].Verdict, r.Points[0].Metrics[1].Adjustment = metrics.VerdictInconclusive, adj
	var table, md, junit, js bytes.Buffer
	for _, err := range []error{Table(r)(&table), Markdown(r)(&md), JUnit(r, false)(&junit), JSON(r)(&js)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, got := range map[string]string{"table": table.String(), "markdown": md.String(), "junit": junit.String(), "compare.json": js.String()} {
		if !strings.Contains(got, adj) {
			t.Errorf("%s lacks the adjustment:\n%s", name, got)
		}
	}
}
