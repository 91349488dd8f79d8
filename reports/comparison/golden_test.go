package comparison

import (
	"bytes"
	"testing"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/reports/internal/golden"
)

// goldenReport is report's comparison with what the writers print beside
// the table: a profile point (no experiment) whose error rate rose from
// 0 (an infinite change) and an inter-token latency too noisy to judge
// (inconclusive: a failure only under --fail-on-inconclusive), an
// unmatched point and a warning.
func goldenReport(t *testing.T) *Report {
	t.Helper()
	r := report(t)
	clean, failing := make([]float64, 60), make([]float64, 60)
	for i := range failing {
		failing[i] = float64(i % 5 / 4)
	}
	c, err := judgedAlone(t, "error_rate", metrics.Sample{Values: clean}, metrics.Sample{Values: failing})
	if err != nil {
		t.Fatal(err)
	}
	noisy, err := judgedAlone(t, "itl.p99", metrics.Sample{Repeats: []float64{20e6, 22e6, 18e6}},
		metrics.Sample{Repeats: []float64{21.6e6, 23.8e6, 19.4e6}})
	if err != nil {
		t.Fatal(err)
	}
	r.Points = append(r.Points, Point{Label: "rate2", Metrics: []metrics.Comparison{c, noisy}})
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
