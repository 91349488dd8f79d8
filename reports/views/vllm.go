package views

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
)

// vllmWidth is the width of vLLM's result banner and section rules.
const vllmWidth = 50

// vllmText is `vllm bench serve`'s result block (serve.py, benchmark):
// "{:<40} {:<10}" lines under a centered banner, then a section per
// latency metric with its mean, median and p99 (vLLM's default
// --metric-percentiles 99) — E2EL included, as with
// --percentile-metrics ttft,tpot,itl,e2el.
func vllmText(r *genaiperf.Run, v *metrics.VLLMView) string {
	var b strings.Builder
	b.WriteString(pyCenter(" Serving Benchmark Result ", vllmWidth, '=') + "\n")
	vllmInt(&b, "Successful requests:", int64(v.Completed))
	vllmInt(&b, "Failed requests:", int64(v.Failed))
	if r.Stimulus.Mode() == "concurrency" {
		vllmInt(&b, "Maximum request concurrency:", int64(max(r.Stimulus.Concurrency, 1)))
	} else if !r.Stimulus.FixedSchedule {
		vllmFloat(&b, "Request rate configured (RPS):", r.Stimulus.RequestRate)
	}
	vllmFloat(&b, "Benchmark duration (s):", v.Duration)
	vllmInt(&b, "Total input tokens:", v.TotalInput)
	vllmInt(&b, "Total generated tokens:", v.TotalOutput)
	vllmFloat(&b, "Request throughput (req/s):", v.RequestThroughput)
	vllmFloat(&b, "Output token throughput (tok/s):", v.OutputThroughput)
	vllmFloat(&b, "Peak output token throughput (tok/s):", v.MaxOutputTokensPerS)
	vllmFloat(&b, "Peak concurrent requests:", float64(v.MaxConcurrentRequests))
	vllmFloat(&b, "Total token throughput (tok/s):", v.TotalTokenThroughput)
	for _, m := range []struct {
		name, header string
		st           metrics.VLLMStats
	}{
		{"TTFT", "Time to First Token", v.TTFT},
		{"TPOT", "Time per Output Token (excl. 1st token)", v.TPOT},
		{"ITL", "Inter-token Latency", v.ITL},
		{"E2EL", "End-to-end Latency", v.E2EL},
	} {
		b.WriteString(pyCenter(m.header, vllmWidth, '-') + "\n")
		vllmFloat(&b, "Mean "+m.name+" (ms):", m.st.Mean)
		vllmFloat(&b, "Median "+m.name+" (ms):", m.st.Median)
		vllmFloat(&b, "P99 "+m.name+" (ms):", m.st.P99)
	}
	b.WriteString(strings.Repeat("=", vllmWidth) + "\n")
	return b.String()
}

// vllmInt writes Python's "{:<40} {:<10}" of an integer.
func vllmInt(b *strings.Builder, label string, v int64) {
	fmt.Fprintf(b, "%-40s %-10s\n", label, strconv.FormatInt(v, 10))
}

// vllmFloat writes Python's "{:<40} {:<10.2f}".
func vllmFloat(b *strings.Builder, label string, v float64) {
	fmt.Fprintf(b, "%-40s %-10s\n", label, strconv.FormatFloat(v, 'f', 2, 64))
}

// pyCenter is Python's "{s:{c}^{n}}": s centered in n columns of fill,
// the odd column of slack on the right.
func pyCenter(s string, n int, fill rune) string {
	slack := max(0, n-len([]rune(s)))
	f := string(fill)
	return strings.Repeat(f, slack/2) + s + strings.Repeat(f, slack-slack/2)
}
