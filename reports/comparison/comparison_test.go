package comparison

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// report compares ttft.p99 of repeats 15% slower (a regression) and
// request_throughput of identical repeats (no change).
func report(t *testing.T) *Report {
	t.Helper()
	slow, err := judgedAlone(t, "ttft.p99", metrics.Sample{Repeats: []float64{100e6, 100.5e6, 99.5e6}},
		metrics.Sample{Repeats: []float64{115e6, 115.575e6, 114.425e6}})
	if err != nil {
		t.Fatal(err)
	}
	same, err := judgedAlone(t, "request_throughput", metrics.Sample{Repeats: []float64{10, 10.2, 9.8}},
		metrics.Sample{Repeats: []float64{10, 10.2, 9.8}})
	if err != nil {
		t.Fatal(err)
	}
	return &Report{Baseline: "base", Candidate: "cand", Tolerance: 0.1, Confidence: 0.95,
		Points: []Point{{Experiment: "e", Label: "concurrency8", Metrics: []metrics.Comparison{same, slow}}}}
}

func TestWritersShowTheRegressionFirst(t *testing.T) {
	r := report(t)
	var table, md, js bytes.Buffer
	if err := Table(r)(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"== e/concurrency8 ==", "ttft.p99 100.00 ms 115.00 ms +15.0%", "regression (tolerance 10%)",
		"1 regressions: e/concurrency8 ttft.p99 +15.0%"} {
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
	if _, err := ReadJSON(strings.NewReader(`{"schema": 2}`)); err == nil {
		t.Error("compare.json of another schema was read")
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
