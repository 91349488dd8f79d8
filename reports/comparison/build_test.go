package comparison

import (
	"fmt"
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
