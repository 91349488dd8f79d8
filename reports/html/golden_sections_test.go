package html

import (
	"bytes"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/internal/golden"
	"github.com/llmbench/llmbench/runtime"
)

// The sections the first golden page lacks: a conversation point's
// sessions, a point merged from shards, steady-state points (one that
// converged, one that hit its cap), and the prefix cache shifting between
// points, byte for byte.
func TestPageSectionsGolden(t *testing.T) {
	results, _ := sweepFixture(t, t.TempDir())
	pts := results[0].Points
	d := func(vs ...float64) *metrics.Distribution { return metrics.NewDistribution(vs) }
	pts[0].Outcome.Summary.Sessions = &metrics.SessionSummary{Sessions: 4, Completed: 3, Failed: 1, Cut: 0,
		Duration: d(900e6, 1200e6, 1500e6), Turns: d(2, 3, 3, 4), Throughput: 1.5,
		PerTurn: []metrics.TurnStats{
			{Turn: 1, Requests: 4, TimeToFirstToken: d(20e6, 22e6), RequestLatency: d(200e6, 210e6), InputSequenceLength: d(100, 120)},
			{Turn: 2, Requests: 4, TimeToFirstToken: d(30e6, 35e6), RequestLatency: d(260e6, 280e6), InputSequenceLength: d(300, 340)},
		}}
	pts[1].Outcome.Shards = []runtime.ShardShare{{Index: 0, Requests: 31, Started: 1e9}, {Index: 1, Requests: 31, Started: 1e9 + 4e6}}
	rule := metrics.SteadyRule{CI: 0.05, Confidence: 0.95, MinRequests: 50}
	pts[1].Outcome.Steady = &runtime.SteadyOutcome{Rule: rule, Metrics: []string{"ttft.p50"}, Converged: true, Requests: 62, Measured: 58,
		Warmup: 4, WarmupMethod: "MSER-5", Check: metrics.SteadyCheck{Requests: 62, Widths: []metrics.SteadyWidth{{Width: 0.031}}, Met: true}}
	pts[2].Outcome.Steady = &runtime.SteadyOutcome{Rule: rule, Metrics: []string{"ttft.p50"}, Requests: 62, Measured: 62,
		WarmupMethod: "MSER-5", Check: metrics.SteadyCheck{Requests: 62, Widths: []metrics.SteadyWidth{{Width: 0.12}}}}
	for i, cached := range []int64{300, 600, 450} {
		pts[i].Outcome.Summary.PrefixCache = &metrics.PrefixCacheShare{CachedTokens: cached, PromptTokens: 1000, Requests: 10,
			Share: float64(cached) / 1000}
	}
	var b bytes.Buffer
	if err := writePage(&b, Report{Title: "llmbench · sections", Results: results}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "report_sections.html", b.Bytes())
}
