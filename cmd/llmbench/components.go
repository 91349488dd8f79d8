package main

import (
	"fmt"
	"io"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// writeComponents prints headline metrics per dataset component when a
// point's requests came from a mix, so one component's slow tail cannot
// hide inside the blend. Each component is summarized from its own records
// with the same definitions as the whole.
func writeComponents(w io.Writer, parts []runtime.ComponentSummary) {
	if len(parts) < 2 {
		return
	}
	fmt.Fprintf(w, "Per component: %-14s %8s %7s %10s %10s %10s %10s %8s\n",
		"component", "requests", "errors", "TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "OSL avg")
	for _, c := range parts {
		s := &c.Summary
		fmt.Fprintf(w, "               %-14s %8d %7d %10s %10s %10s %10s %8s\n", c.Name, s.Completed, s.Failed,
			msText(s.TimeToFirstToken, 50), msText(s.TimeToFirstToken, 99),
			msText(s.InterTokenLatency, 50), msText(s.InterTokenLatency, 99), avgText(s.OutputSequenceLength))
	}
}

func msText(d *metrics.Distribution, p float64) string {
	if d == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f ms", d.Percentile(p)/1e6)
}

func avgText(d *metrics.Distribution) string {
	if d == nil {
		return "–"
	}
	return fmt.Sprintf("%.1f", d.Avg)
}
