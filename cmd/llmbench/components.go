package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// writeComponents prints headline metrics per dataset component when a
// point's requests came from a mix, so one component's slow tail cannot
// hide inside the blend. Each component is summarized from its own records
// with the same definitions as the whole.
func writeComponents(w io.Writer, out *runtime.Outcome, goodput []metrics.SLO) {
	groups := map[string][]metrics.Record{}
	var names []string
	for _, rec := range out.Result.Records {
		if _, ok := groups[rec.Component]; !ok {
			names = append(names, rec.Component)
		}
		groups[rec.Component] = append(groups[rec.Component], rec)
	}
	if len(names) < 2 {
		return
	}
	slices.Sort(names)
	fmt.Fprintf(w, "Per component: %-14s %8s %7s %10s %10s %10s %10s %8s\n",
		"component", "requests", "errors", "TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "OSL avg")
	for _, name := range names {
		s := metrics.Summarize(groups[name], metrics.Options{Goodput: goodput})
		fmt.Fprintf(w, "               %-14s %8d %7d %10s %10s %10s %10s %8s\n", name, s.Completed, s.Failed,
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
