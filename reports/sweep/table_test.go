package sweep

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/internal/golden"
	"github.com/llmbench/llmbench/runtime"
	"github.com/llmbench/llmbench/runtime/plan"
)

func table(t *testing.T, res *runtime.ExperimentResult) string {
	t.Helper()
	var b strings.Builder
	if err := Console(res)(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func mustContain(t *testing.T, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Errorf("missing %q in:\n%s", p, text)
		}
	}
}

// A saturating sweep names its knee (the last load meeting the latency
// gate), its max-goodput point and where and why throughput stopped.
func TestTableSaturating(t *testing.T) {
	got := table(t, saturating())
	golden.Check(t, "table_saturating.txt", []byte(got))
	mustContain(t, got,
		"Knee (ttft.p99 < 50ms): concurrency 8, the highest load meeting it before it first fails",
		"Max goodput: 4.00 req/s at concurrency 4",
		"Saturation: at concurrency 4: output token throughput grew 2.5% (< 5%) from concurrency 4 to 8",
		"3 (3.00%)", "✗", "✓")
}

// A sweep whose throughput keeps growing says the capacity is only the
// highest load tried, and a gate met everywhere gives a lower bound.
func TestTableNeverSaturating(t *testing.T) {
	got := table(t, growing())
	golden.Check(t, "table_growing.txt", []byte(got))
	mustContain(t, got,
		"Saturation: never saturated up to concurrency 8: the capacity reported is only the highest load tried",
		"the gate held at every load tried, so the knee is at least that",
		"Max goodput: – (no goodput measured: give goodput SLOs)")
}

// Points are listed in run order, the analysis runs in load order, and a
// given gate replaces the experiment's.
func TestTableRunOrderAndGivenGate(t *testing.T) {
	res := saturating()
	res.Points[0], res.Points[4] = res.Points[4], res.Points[0]
	g, _ := metrics.ParseGate("ttft.p99 < 20ms")
	res.Capacity = runtime.AnalyzeCapacity(res, nil)
	k := res.Capacity.KneeFor(res, g)
	res.Capacity.Knee = &k
	got := table(t, res)
	lines := strings.Split(got, "\n")
	if !strings.HasPrefix(strings.TrimSpace(lines[1]), "16 ") || !strings.HasPrefix(strings.TrimSpace(lines[5]), "1 ") {
		t.Errorf("rows not in run order:\n%s", got)
	}
	mustContain(t, got, "Knee (ttft.p99 < 20ms): concurrency 4,",
		"Saturation: at concurrency 4:")
}

// The lowest load already missing the gate has no knee; without a gate
// the table says so; a sweep's own saturation verdict and a search are
// reported as given.
func TestTableVerdictsInWords(t *testing.T) {
	res := sweepOf(metrics.ParamConcurrency, []string{"ttft.p99 < 5ms"},
		measured{1, 10, 5, 100, 1, -1, 0}, measured{2, 12, 5, 150, 1.5, -1, 0})
	mustContain(t, table(t, res), "none: even the lowest load, concurrency 1, misses it")

	res = sweepOf(metrics.ParamConcurrency, nil, measured{1, 10, 5, 100, 1, -1, 0}, measured{2, 10, 5, 200, 2, -1, 0})
	g, _ := metrics.ParseGate("ttft.p99 < 50ms")
	res.Experiment.Sweep = &plan.Sweep{Search: &plan.Search{Gate: g, Over: metrics.ParamConcurrency, Lo: 1, Hi: 2}}
	res.Capacity = runtime.AnalyzeCapacity(res, &runtime.Capacity{
		Saturation: &runtime.SaturationResult{Point: 1, Reason: "reached the limit (concurrency 2) without saturating: the capacity reported is only the highest load tried"},
		Search:     &runtime.SearchResult{Found: true, Best: 2, Point: 1}})
	mustContain(t, table(t, res),
		"Knee: – (no latency gate to judge it by)",
		"Saturation: never saturated: reached the limit (concurrency 2) without saturating",
		"Search: the largest concurrency meeting ttft.p99 < 50ms is 2 (2 points tried)")
}

// An interrupted point is shown as partial and kept out of the analyses;
// a token-length sweep is not judged for saturation.
func TestTablePartialAndTokenSweep(t *testing.T) {
	res := growing()
	res.Points[3].Outcome.Interrupted = true
	got := table(t, res)
	mustContain(t, got, "8 (partial)", "never saturated up to concurrency 4")

	res = sweepOf(metrics.ParamInputTokens, nil, measured{128, 10, 5, 100, 1, -1, 0}, measured{512, 30, 5, 90, 0.9, -1, 0})
	mustContain(t, table(t, res), "input_tokens", "Saturation: – (not analysed: a input_tokens sweep holds the load fixed)")
}

// Repeated points show mean ± CI half-width for throughput and p99 TTFT
// and explain every "!" of disagreeing repeats.
func TestTableRepeats(t *testing.T) {
	res := growing()
	p := &res.Points[1]
	var runs []*metrics.Summary
	for _, tok := range []float64{200, 204, 250} {
		s := summaryOf(measured{2, 10, 5, tok, 2, -1, 0})
		runs = append(runs, &s)
		p.Repeats = append(p.Repeats, &runtime.Outcome{Summary: s})
	}
	p.Repeats = p.Repeats[1:]
	p.RepeatStats = metrics.HeadlineRepeats(runs)
	got := table(t, res)
	golden.Check(t, "table_repeats.txt", []byte(got))
	st := p.RepeatStats["output_token_throughput"]
	mustContain(t, got, fixed(st.Mean, 1)+" ± "+fixed((st.CIHigh-st.CILow)/2, 1)+" !",
		"10.00 ± 0.00",
		"! concurrency 2: its 3 repeats differ by more than 10% (output_token_throughput 22.9%")
}

// Without streaming the first token arrives with the last, so the column
// says what it measured: request latency.
func TestTableNonStreamingNamesLatency(t *testing.T) {
	res := growing()
	res.Experiment.Endpoint.Stream = false
	got := table(t, res)
	mustContain(t, got, "latency p99 (ms)")
	if strings.Contains(got, "TTFT") {
		t.Errorf("a non-streaming sweep table names TTFT:\n%s", got)
	}
}
