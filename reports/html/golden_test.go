package html

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/comparison"
	"github.com/llmbench/llmbench/reports/internal/golden"
	"github.com/llmbench/llmbench/reports/plots"
	"github.com/llmbench/llmbench/reports/verdict"
	"github.com/llmbench/llmbench/runtime"
)

// tinyPNG is a w×h PNG named name: the golden page holds its bytes, not a
// real plot's, so it is read for its layout and does not change when a
// plot is drawn differently.
func tinyPNG(t *testing.T, name string, w, h int) plots.Image {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return plots.Image{Name: name, PNG: b.Bytes()}
}

// goldenReport is every section of the page at once: configuration,
// check(), gates, the comparison, a sweep with a repeated point whose
// repeats disagree, a partial point, a client-limited point, telemetry,
// dataset components, errors, and plots.
func goldenReport(t *testing.T) Report {
	t.Helper()
	dir := t.TempDir()
	results, verdicts := sweepFixture(t, dir)
	withTelemetry(t, &results[0], dir)
	res := &results[0]
	pt := &res.Points[0]
	var runs []*metrics.Summary
	for _, f := range []float64{1, 1.02, 1.5} {
		s := pt.Outcome.Summary
		s.TimeToFirstToken = s.TimeToFirstToken.Scaled(f)
		runs = append(runs, &s)
		pt.Repeats = append(pt.Repeats, &runtime.Outcome{Summary: s})
	}
	pt.RepeatStats = metrics.HeadlineRepeats(runs)
	res.Points[1].Outcome.Summary.Client = &metrics.ClientVerdict{Limited: true, Reasons: []string{"the client used 97% of its 2 cores"}}
	res.Points[2].Outcome.Interrupted = true
	cmp := &comparison.File{Baseline: "runs/base", Candidate: "runs/new", Tolerance: 0.05, Confidence: 0.95,
		Regressions: 1, Inconclusive: 1, Points: []comparison.FilePoint{{Experiment: "chat-mix", Point: "concurrency1", Metrics: []comparison.FileMetric{
			{Metric: "ttft.p99", Unit: "ms", Baseline: 100, Candidate: 130, Change: 0.3, Interval: verdict.NewInterval(1.2, 1.4),
				Method: "bootstrap", Tolerance: 0.05, Verdict: "regression",
				Judgement: verdict.Judgement{MDC: 0.08, BaselineRuns: 5, CandidateRuns: 1}},
			{Metric: "itl.p50", Unit: "ms", Baseline: 10, Candidate: 11.5, Change: 0.15, Interval: verdict.NewInterval(1.11, 1.19),
				Method: "bootstrap", Tolerance: 0.1, Verdict: "inconclusive",
				Judgement: verdict.Judgement{MDC: 0.05, Adjustment: "regression → inconclusive after Holm over 3 gates", BaselineRuns: 5, CandidateRuns: 1}},
			{Metric: "output_token_throughput", Unit: "tokens/s", Baseline: 500, Candidate: 510, Change: 0.02,
				Interval: verdict.NewInterval(0.98, 1.06), Method: "welch", Tolerance: 0.05, Verdict: "no change",
				Judgement: verdict.Judgement{MDC: 0.04, BaselineRuns: 5, CandidateRuns: 1}},
			{Metric: "request_latency.p99", Unit: "ms", Baseline: 900, Candidate: 990, Change: 0.1, Interval: verdict.NewInterval(1.03, math.Inf(1)),
				Method: "bootstrap", Tolerance: 0.05, Verdict: "inconclusive",
				Judgement: verdict.Judgement{MDC: verdict.Bound(math.Inf(1)), Informational: true, Unbounded: "only 3 requests above p99",
					BaselineRuns: 5, CandidateRuns: 1}}}}},
		Unmatched: []string{"chat-mix/concurrency64"}, Warnings: []string{"the baseline ran another model"}}
	return Report{Title: "llmbench · golden", Scenario: "scenarios/chat.star",
		Config: []KV{{"llmbench", "v0.0.0-test"}}, Results: results, Verdicts: verdicts,
		Check: verdict.CheckFailed, Comparison: cmp, Partial: true,
		Plots: []PlotGroup{
			{Title: "chat-mix · sweep", Images: []plots.Image{tinyPNG(t, "chat-mix-throughput_vs_p99_ttft.png", 2, 1)}},
			{Title: "chat-mix · concurrency1", Images: []plots.Image{tinyPNG(t, plots.FileTTFT, 2, 1), tinyPNG(t, plots.FileLatency, 2, 1)}},
		},
		Telemetry: map[string]TelemetryPlots{"chat-mix": {
			Sweep:  []plots.Image{tinyPNG(t, "chat-mix-throughput_energy_cost_vs_load.png", 1, 2)},
			Points: []PlotGroup{{Title: "concurrency1", Images: []plots.Image{tinyPNG(t, plots.FileTelemetry, 1, 2)}}},
		}},
	}
}

// report.html's every section, byte for byte.
func TestPageGolden(t *testing.T) {
	var b bytes.Buffer
	if err := writePage(&b, goldenReport(t)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "report.html", b.Bytes())
}
