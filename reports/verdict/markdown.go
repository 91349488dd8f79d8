package verdict

import (
	"fmt"
	"io"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/runtime"
)

// Markdown writes a summary for CI pages (a GitHub job summary, a
// merge-request note): the verdict, a table of headline metrics per point,
// and every gate with ✓/✗.
func Markdown(results []runtime.ExperimentResult, r *Report) reports.Reporter {
	var b strings.Builder
	status := "✅ "
	if r.Failed() > 0 {
		status = "❌ "
	}
	fmt.Fprintf(&b, "# llmbench: %s\n\n%s%s\n", r.Scenario, status, r.Status())
	if r.Partial {
		b.WriteString("\n> ⚠️ **Partial run**: interrupted before every point finished.\n")
	}
	if r.Check != CheckNotDefined && r.Check != "" {
		fmt.Fprintf(&b, "\ncheck(): %s\n", r.Check)
	}
	for _, er := range results {
		fmt.Fprintf(&b, "\n## %s\n\n", er.Experiment.Name)
		b.WriteString("| point | requests | errors | TTFT p50 (ms) | TTFT p99 (ms) | ITL p50 (ms) | ITL p99 (ms) | output tok/s | req/s |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, p := range er.Points {
			s := &p.Outcome.Summary
			fmt.Fprintf(&b, "| %s | %d | %d (%.2f%%) | %s | %s | %s | %s | %.2f | %.2f |\n",
				p.Params.Label(), s.Completed, s.Failed, 100*s.ErrorRate,
				ms(s.TimeToFirstToken, 50), ms(s.TimeToFirstToken, 99), ms(s.InterTokenLatency, 50), ms(s.InterTokenLatency, 99),
				s.OutputTokenThroughput, s.RequestThroughput)
		}
	}
	if len(r.Verdicts) > 0 {
		b.WriteString("\n## Gates\n\n")
		for _, v := range r.Verdicts {
			fmt.Fprintf(&b, "- %s `%s`%s: %s\n", markOf(v).icon(), v.Gate, where(v), v.Message)
			if v.Warning != "" {
				fmt.Fprintf(&b, "  - %s\n", v.Warning)
			}
		}
	}
	text := b.String()
	return func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	}
}

// ms renders a percentile of a time distribution in ms, or "–".
func ms(d *metrics.Distribution, p float64) string {
	if d == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f", d.Percentile(p)/1e6)
}
