package comparison

import (
	"bytes"
	"math"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/reports/internal/golden"
)

// goldenReport is report's comparison with what the writers print beside
// the table: an error rate of 0 on both sides (exact: any change would
// be detected), a profile point (no experiment) whose error rate rose
// from 0 (an infinite change, its upper bound missing, and why), an
// inter-token latency the family adjustment made inconclusive (a failure
// only under --fail-on-inconclusive), an informational p99 latency with
// no upper bound (shown apart, failing nothing), an unmatched point and
// a warning. Every value is set by hand as the judge would give it.
func goldenReport(t *testing.T) *Report {
	t.Helper()
	r := report(t)
	errs := metrics.Comparison{Metric: "error_rate", Direction: metrics.LowerIsBetter, Baseline: 0, Candidate: 0.2,
		Interval: metrics.RatioInterval{Method: metrics.MethodBlockBootstrap, Candidate: 0.2, Ratio: math.Inf(1),
			Low: math.Inf(1), High: math.Inf(1), Confidence: 0.95},
		Tolerance: 0.1, Verdict: metrics.VerdictRegression, MDC: math.Inf(1), BaselineRuns: 1, CandidateRuns: 1,
		Unbounded: "a change from 0 has no upper bound"}
	clean := metrics.Comparison{Metric: "error_rate", Direction: metrics.LowerIsBetter,
		Interval:  metrics.RatioInterval{Method: metrics.MethodExact, Ratio: 1, Low: 1, High: 1, Confidence: 0.95},
		Tolerance: 0.1, Verdict: metrics.VerdictNoChange, PRegression: 1, BaselineRuns: 3, CandidateRuns: 3}
	noisy := metrics.Comparison{Metric: "itl.p99", Direction: metrics.LowerIsBetter, Baseline: 20e6, Candidate: 23e6,
		Interval: metrics.RatioInterval{Method: metrics.MethodRuns, Baseline: 20e6, Candidate: 23e6, Ratio: 1.15,
			Low: 1.112, High: 1.19, Confidence: 0.95},
		Tolerance: 0.1, Verdict: metrics.VerdictInconclusive, PRegression: 0.03, MDC: 0.082, BaselineRuns: 5, CandidateRuns: 1,
		Adjustment: "regression → inconclusive after Holm over 4 gates"}
	tail := metrics.Comparison{Metric: "request_latency.p99", Direction: metrics.LowerIsBetter, Baseline: 900e6, Candidate: 990e6,
		Interval: metrics.RatioInterval{Method: metrics.MethodOrderStatistics, Baseline: 900e6, Candidate: 990e6, Ratio: 1.1,
			Low: 1.031, High: math.Inf(1), Confidence: 0.95},
		Tolerance: 0.05, Verdict: metrics.VerdictInconclusive, PRegression: 0.2, MDC: math.Inf(1), BaselineRuns: 1, CandidateRuns: 1,
		Informational: true, Unbounded: "only 3 requests above p99"}
	r.Points[0].Metrics = append(r.Points[0].Metrics, clean)
	r.Points = append(r.Points, Point{Label: "rate2", Metrics: []metrics.Comparison{errs, noisy, tail}})
	r.Unmatched = []string{"e/concurrency16 (candidate only)"}
	r.Warnings = []string{"the candidate counted tokens another way"}
	return r
}

// TestGolden pins every file and console block compare writes.
func TestGolden(t *testing.T) {
	r := goldenReport(t)
	later := goldenReport(t)
	later.Candidate = "cand2"
	for _, tc := range []struct {
		name   string
		report reports.Reporter
	}{
		{"table.txt", Table(r)}, {"compare.json", JSON(r)}, {"summary.md", Markdown(r)},
		{"junit.xml", JUnit(r, false)}, {"junit-strict.xml", JUnit(r, true)},
		{"trend.txt", Trend([]*Report{r, later})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.report(&b); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tc.name, b.Bytes())
		})
	}
}
