package html

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

// A family adjustment that changed a verdict is said on the page where
// the verdict is, in the gates and in the comparison; an informational
// metric is shown apart, under its label, with why its bound is missing.
func TestPageShowsAdjustmentAndInformationalApart(t *testing.T) {
	const adj = "regression → inconclusive after Holm over 4 gates"
	gate, err := metrics.ParseGate("itl.p50 <= baseline * 1.1")
	if err != nil {
		t.Fatal(err)
	}
	base := 10e6
	exp := &plan.Experiment{Name: "chat", Gates: []metrics.Gate{gate}}
	judged := runtime.GateResult{Gate: gate, Measured: 11.5e6, Passed: true, Baseline: &base,
		Comparison: &metrics.Comparison{Metric: "itl.p50", Direction: metrics.LowerIsBetter, Baseline: base, Candidate: 11.5e6,
			Interval:  metrics.RatioInterval{Method: metrics.MethodBlockBootstrap, Ratio: 1.15, Low: 1.11, High: 1.19, Confidence: 0.95},
			Tolerance: 0.1, Verdict: metrics.VerdictInconclusive, MDC: 0.05, Adjustment: adj}}
	vs := verdict.Collect([]runtime.ExperimentResult{{Experiment: exp,
		Points: []runtime.PointResult{{Params: plan.Params{"concurrency": 4}, Gates: []runtime.GateResult{judged}}}}})
	cmp := &comparison.File{Baseline: "base", Candidate: "new", Confidence: 0.95, Inconclusive: 1,
		Points: []comparison.FilePoint{{Experiment: "chat", Point: "concurrency4", Metrics: []comparison.FileMetric{
			{Metric: "itl.p50", Unit: "ms", Baseline: 10, Candidate: 11.5, Change: 0.15, Interval: verdict.NewInterval(1.11, 1.19),
				Tolerance: 0.1, Verdict: "inconclusive", Judgement: verdict.Judgement{MDC: 0.05, Adjustment: adj}},
			{Metric: "request_latency.p99", Unit: "ms", Baseline: 900, Candidate: 990, Change: 0.1, Interval: verdict.NewInterval(1.03, math.Inf(1)),
				Tolerance: 0.05, Verdict: "regression", Judgement: verdict.Judgement{Informational: true, Unbounded: "only 3 requests above p99"}}}}}}
	var b bytes.Buffer
	if err := writePage(&b, Report{Verdicts: vs, Comparison: cmp}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	gates, comparisonAt := strings.Index(page, `id="gates"`), strings.Index(page, `id="comparison"`)
	if gates < 0 || comparisonAt < 0 {
		t.Fatalf("page lacks the gates or the comparison:\n%s", page)
	}
	if !strings.Contains(page[gates:comparisonAt], adj) || !strings.Contains(page[comparisonAt:], adj) {
		t.Errorf("the adjustment is not in both the gates and the comparison:\n%s", page)
	}
	label := strings.Index(page, "Informational (judged apart from the gated metrics; fails nothing)")
	if label < comparisonAt || strings.Index(page, "request_latency.p99") < label ||
		!strings.Contains(page[label:], "no upper bound (only 3 requests above p99)") {
		t.Errorf("the informational metric is not shown apart under its label:\n%s", page[comparisonAt:])
	}
}
