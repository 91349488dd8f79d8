package comparison

import (
	"fmt"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// runOf is 2,000 streamed requests, sent 50 ms apart, TTFT scattered over
// 50–150 ms times slow, 8 chunks 10 ms apart.
func runOf(slow float64) []metrics.RunData {
	recs := make([]metrics.Record, 2000)
	for i := range recs {
		sent := int64(i) * 50e6
		ttft := int64(float64(50+(i*7919)%101) * 1e6 * slow)
		r := metrics.Record{ID: int64(i), Sent: sent, InputTokens: 10, OutputTokens: 8}
		for c := range 8 {
			r.Chunks = append(r.Chunks, sent+ttft+int64(c)*10e6)
		}
		r.Done = r.Chunks[7]
		recs[i] = r
	}
	s := metrics.Summarize(recs, metrics.Options{})
	return []metrics.RunData{{Summary: &s, Records: recs}}
}

func TestBuildNamesTheSlowerMetric(t *testing.T) {
	opt := Options{Metrics: []string{"ttft.p50", "itl.p50", "error_rate"}, Tolerance: 0.10, Judge: metrics.DefaultJudgeOptions()}
	same, err := Build("a", "b", []Pair{{Experiment: "e", Label: "concurrency1", Baseline: runOf(1), Candidate: runOf(1)}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(same.Regressions()); n != 0 || same.Count(metrics.VerdictNoChange) != 3 {
		t.Errorf("identical runs: %d regressions, %s", n, Headline(same))
	}
	slow, err := Build("a", "b", []Pair{{Experiment: "e", Label: "concurrency1", Baseline: runOf(1), Candidate: runOf(1.3)}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	regs := slow.Regressions()
	if len(regs) != 1 || regs[0].Metric != "ttft.p50" {
		t.Errorf("30%% slower TTFT: %s", Headline(slow))
	}
	opt.Tolerances = map[string]float64{"ttft.p50": 0.5}
	if lax, err := Build("a", "b", []Pair{{Baseline: runOf(1), Candidate: runOf(1.3)}}, opt); err != nil || len(lax.Regressions()) != 0 {
		t.Errorf("30%% slower within a 50%% tolerance: %v (%v)", Headline(lax), err)
	}
}

// compare's default metrics are the headline's that a single run can be
// compared on, each a catalogue metric with a direction to judge by.
func TestDefaultMetricsAreCatalogueMetrics(t *testing.T) {
	want := []string{"ttft.p50", "ttft.p99", "itl.p50", "itl.p99", "request_latency.p99",
		"output_token_throughput", "request_throughput", "error_rate"} // issue 11's list
	if fmt.Sprint(DefaultMetrics) != fmt.Sprint(want) {
		t.Errorf("DefaultMetrics = %v, want %v", DefaultMetrics, want)
	}
	for _, name := range DefaultMetrics {
		if _, err := metrics.MetricDirection(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// judgedAlone is the judge's comparison of one metric at a 10% tolerance, a
// family of one.
func judgedAlone(t *testing.T, name string, baseline, candidate metrics.Sample) (metrics.Comparison, error) {
	t.Helper()
	g, err := metrics.BaselineGate(name, 0.10)
	if err != nil {
		t.Fatal(err)
	}
	return metrics.JudgeSamples(g, baseline, candidate, metrics.DefaultJudgeOptions())
}

// Two sides served from the prefix cache in different measure are
// warned of, from the responses' cached tokens or, when they carried
// none (vLLM's default), from the server's own hit counters; a few
// points apart is no warning.
func TestBuildWarnsOfACacheShift(t *testing.T) {
	withShare := func(share float64) []metrics.RunData {
		runs := runOf(1)
		s := *runs[0].Summary
		s.PrefixCache = &metrics.PrefixCacheShare{CachedTokens: int64(1000 * share), PromptTokens: 1000, Requests: 10, Share: share}
		runs[0].Summary = &s
		return runs
	}
	withServer := func(rate float64) []metrics.RunData {
		runs := runOf(1)
		runs[0].Telemetry = &metrics.TelemetrySummary{Server: metrics.ServerTelemetry{PrefixCacheHitRate: metrics.TelemetryValue{Value: rate, OK: true}}}
		return runs
	}
	opt := Options{Metrics: []string{"ttft.p50"}, Tolerance: 0.10, Judge: metrics.DefaultJudgeOptions()}
	for _, c := range []struct {
		name       string
		base, cand []metrics.RunData
		want       string
	}{
		{"usage", withShare(0), withShare(0.61), "prefix-cache hit share: baseline 0.0% (responses' cached tokens), candidate 61.0% (responses' cached tokens), 61 points apart"},
		{"server", withServer(0), withServer(0.826), "baseline 0.0% (server's counters), candidate 82.6% (server's counters)"},
		{"close", withShare(0.05), withShare(0.12), ""},
	} {
		r, err := Build("a", "b", []Pair{{Experiment: "e", Label: "concurrency1", Baseline: c.base, Candidate: c.cand}}, opt)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(r.Warnings, "\n")
		if c.want == "" && strings.Contains(got, "prefix-cache") || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: warnings %q, want %q", c.name, got, c.want)
		}
	}
}
