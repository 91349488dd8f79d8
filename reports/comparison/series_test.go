package comparison

import (
	"bytes"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/plots"
)

// judged is a comparison with a known value, interval and verdict, as
// Build would give (values in native units: ns for times).
func judged(metric string, d metrics.Direction, base, cand, lo, hi float64, v metrics.Verdict) metrics.Comparison {
	return metrics.Comparison{Metric: metric, Direction: d, Baseline: base, Candidate: cand, Tolerance: 0.1, Verdict: v,
		Interval: metrics.RatioInterval{Ratio: cand / base, Low: lo, High: hi}}
}

// history is two runs against runs/base: the older measured chat at
// concurrency 8 only, the newer also concurrency 16.
func history() []*Report {
	lower, higher := metrics.LowerIsBetter, metrics.HigherIsBetter
	older := &Report{Baseline: "runs/base", Candidate: "runs/mon/artifacts", Tolerance: 0.1, Confidence: 0.95, Points: []Point{
		{Experiment: "chat", Label: "concurrency8", Metrics: []metrics.Comparison{
			judged("ttft.p99", lower, 100e6, 102e6, 0.98, 1.06, metrics.VerdictNoChange),
			judged("output_token_throughput", higher, 1000, 980, 0.95, 1.01, metrics.VerdictNoChange),
			judged("error_rate", lower, 0.01, 0.01, 0.5, 2, metrics.VerdictInconclusive)}}}}
	newer := &Report{Baseline: "runs/base", Candidate: "runs/tue/artifacts", Tolerance: 0.1, Confidence: 0.95, Points: []Point{
		{Experiment: "chat", Label: "concurrency8", Metrics: []metrics.Comparison{
			judged("ttft.p99", lower, 100e6, 125e6, 1.2, 1.3, metrics.VerdictRegression),
			judged("output_token_throughput", higher, 1000, 800, 0.78, 0.82, metrics.VerdictRegression),
			judged("error_rate", lower, 0.01, 0.01, 0.5, 2, metrics.VerdictInconclusive)}},
		{Experiment: "chat", Label: "concurrency16", Metrics: []metrics.Comparison{
			judged("ttft.p99", lower, 200e6, 190e6, 0.9, 0.99, metrics.VerdictImprovement)}}}}
	return []*Report{older, newer}
}

// Each point and metric is one trend in report units: the interval of
// the ratio scaled by the baseline, the limit baseline × (1 ± tolerance)
// by direction, the runs named by the folders that tell them apart.
func TestTrendSeriesKnownValues(t *testing.T) {
	got := TrendSeries(history())
	if len(got) != 4 {
		t.Fatalf("%d trends, want 4 (3 metrics at concurrency8, 1 at concurrency16)", len(got))
	}
	ttft := got[0]
	want := plots.Trend{Experiment: "chat", Point: "concurrency8", Metric: "ttft.p99", Unit: "ms", Direction: metrics.LowerIsBetter,
		Tolerance: 0.1, Confidence: 0.95, BaselineName: "base", Baseline: 100, Limit: 110,
		Runs: []plots.TrendRun{
			{Name: "mon/artifacts", Measured: true, Value: 102, Low: 98, High: 106, Verdict: metrics.VerdictNoChange},
			{Name: "tue/artifacts", Measured: true, Value: 125, Low: 120, High: 130, Verdict: metrics.VerdictRegression}}}
	if !equalTrend(ttft, want) {
		t.Errorf("ttft.p99 trend\n got %+v\nwant %+v", ttft, want)
	}
	thr := got[1]
	if thr.Limit != 900 || thr.Unit != "tokens/s" || !near(thr.Runs[1].Low, 780) || !near(thr.Runs[1].High, 820) || thr.Runs[1].Value != 800 {
		t.Errorf("throughput trend (limit 900, run 2 at 800 in [780, 820]): %+v", thr)
	}
	errs := got[2]
	if errs.Unit != "%" || !near(errs.Baseline, 1) || !near(errs.Limit, 1.1) || !near(errs.Runs[0].Value, 1) || !near(errs.Runs[0].High, 2) {
		t.Errorf("error_rate trend in %%: %+v", errs)
	}
	late := got[3]
	if late.Point != "concurrency16" || late.Baseline != 200 || late.Runs[0].Measured || !late.Runs[1].Measured || late.Runs[1].Verdict != metrics.VerdictImprovement {
		t.Errorf("a point only the newer run measured: %+v", late)
	}
	zero := history()[1:]
	zero[0].Points[0].Metrics[2] = judged("error_rate", metrics.LowerIsBetter, 0, 0.05, math.Inf(1), math.Inf(1), metrics.VerdictRegression)
	if r := TrendSeries(zero)[2].Runs[0]; !near(r.Value, 5) || r.Low != r.Value || r.High != r.Value {
		t.Errorf("error_rate from a baseline of 0: %+v, want 5%% with no interval", r)
	}
	one := TrendSeries(history()[1:])
	if len(one) != 4 || len(one[0].Runs) != 1 || one[0].Runs[0].Name != "artifacts" {
		t.Errorf("one candidate: %+v", one)
	}
	if TrendSeries(nil) != nil {
		t.Error("no reports gave trends")
	}
}

// The trend table lists a point the oldest run lacks, "—" in its column.
func TestTrendPointOfALaterRun(t *testing.T) {
	var b bytes.Buffer
	if err := Trend(history())(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if !strings.Contains(s, "== chat/concurrency16 ==") || !strings.Contains(s, "—") || !strings.Contains(s, "125.00 ms (+25.0%) REGRESSION") {
		t.Errorf("trend table:\n%s", s)
	}
}

func TestRunNames(t *testing.T) {
	for _, tc := range []struct{ paths, want []string }{
		{[]string{"runs/mon", "runs/tue"}, []string{"mon", "tue"}},
		{[]string{"a/x/records.parquet", "b/x/records.parquet"}, []string{"a/x", "b/x"}},
		{[]string{"base", "h/mon/artifacts", "h/tue/artifacts"}, []string{"base", "mon/artifacts", "tue/artifacts"}},
		{[]string{"exports/mon.json", "exports/tue.json"}, []string{"mon.json", "tue.json"}},
	} {
		if got := runNames(tc.paths); !slices.Equal(got, tc.want) {
			t.Errorf("runNames(%q) = %q, want %q", tc.paths, got, tc.want)
		}
	}
	if got := runNames([]string{"."}); got[0] == "." || got[0] == "" {
		t.Errorf(`runNames(".") = %q, want the folder's name`, got)
	}
}

func equalTrend(a, b plots.Trend) bool {
	ar, br := a.Runs, b.Runs
	a.Runs, b.Runs = nil, nil
	limits := near(a.Limit, b.Limit)
	a.Limit, b.Limit = 0, 0
	return limits && reflect.DeepEqual(a, b) && slices.EqualFunc(ar, br, func(x, y plots.TrendRun) bool {
		return x.Name == y.Name && x.Measured == y.Measured && x.Verdict == y.Verdict && near(x.Value, y.Value) && near(x.Low, y.Low) && near(x.High, y.High)
	})
}

func near(a, b float64) bool { return a-b < 1e-9*max(1, b) && b-a < 1e-9*max(1, b) }

// A one-sided bound is kept and the missing one marked open, with why:
// the trend plot draws an open bar instead of nothing (before, an
// infinite bound dropped the whole bar).
func TestTrendSeriesKeepsAOneSidedBound(t *testing.T) {
	h := history()[1:]
	tail := judged("ttft.p99", metrics.LowerIsBetter, 100e6, 125e6, 1.05, math.Inf(1), metrics.VerdictInconclusive)
	tail.Unbounded, tail.MDC = "only 3 requests above p99", 0.6
	below := judged("output_token_throughput", metrics.HigherIsBetter, 1000, 800, 0, 0.9, metrics.VerdictInconclusive)
	h[0].Points[0].Metrics[0], h[0].Points[0].Metrics[1] = tail, below
	got := TrendSeries(h)
	up := got[0].Runs[0]
	if !near(up.Low, 105) || up.OpenLow || !up.OpenHigh || up.High != up.Value || up.Unbounded != "only 3 requests above p99" ||
		up.Detects != "detects ≥ 60.0%" {
		t.Errorf("ttft.p99 with no upper bound: %+v, want low 105 and an open top", up)
	}
	down := got[1].Runs[0]
	if !near(down.High, 900) || down.OpenHigh || !down.OpenLow || down.Low != down.Value {
		t.Errorf("throughput with no lower bound: %+v, want high 900 and an open bottom", down)
	}
}
