package views

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports/genaiperf"
)

// llmperfText is what LLMPerf's token_benchmark_ray.py prints
// (metrics_summary): each metric's key, then its quantiles, mean, min, max
// and stddev as Python prints numpy numbers, then the error count, the
// overall output throughput and the completed requests.
func llmperfText(r *genaiperf.Run, s *metrics.Summary, v *metrics.LLMPerfView) string {
	var b strings.Builder
	model := ""
	if len(r.Models) > 0 {
		model = r.Models[0]
	}
	// LLMPerf's own "\Results" (an unknown escape Python leaves as is).
	fmt.Fprintf(&b, "\\Results for token benchmark for %s queried with the openai api.\n\n", model)
	for _, m := range []struct {
		key  string
		st   metrics.LLMPerfStats
		ints bool // a token count: pandas keeps min and max integers
	}{
		{"inter_token_latency_s", v.InterTokenLatency, false},
		{"ttft_s", v.TTFT, false},
		{"end_to_end_latency_s", v.EndToEndLatency, false},
		{"request_output_throughput_token_per_s", v.RequestOutputThroughput, false},
		{"number_input_tokens", v.NumberInputTokens, true},
		{"number_output_tokens", v.NumberOutputTokens, true},
	} {
		llmperfMetric(&b, m.key, m.st, m.ints)
	}
	fmt.Fprintf(&b, "Number Of Errored Requests: %d\n", v.NumErrors)
	if v.NumErrors > 0 {
		b.WriteString("Error Code Frequency\n" + errorCodeFrequency(s.Errors) + "\n")
	}
	fmt.Fprintf(&b, "Overall Output Throughput: %s\n", genaiperf.PyRepr(v.MeanOutputThroughput))
	fmt.Fprintf(&b, "Number Of Completed Requests: %d\n", v.NumCompletedRequests)
	fmt.Fprintf(&b, "Completed Requests Per Minute: %s\n", genaiperf.PyRepr(v.CompletedPerMinute))
	return b.String()
}

// llmperfMetric prints one metric's block. With no value pandas prints
// nan for every statistic.
func llmperfMetric(b *strings.Builder, key string, st metrics.LLMPerfStats, ints bool) {
	num := func(f float64) string {
		if st.Count == 0 {
			return "nan"
		}
		return genaiperf.PyRepr(f)
	}
	extreme := num
	if ints {
		extreme = func(f float64) string {
			if st.Count == 0 {
				return "nan"
			}
			return strconv.FormatInt(int64(f), 10)
		}
	}
	b.WriteString(key + "\n")
	for _, q := range []struct {
		name string
		v    float64
	}{{"p25", st.P25}, {"p50", st.P50}, {"p75", st.P75}, {"p90", st.P90}, {"p95", st.P95}, {"p99", st.P99}} {
		if st.Count == 0 {
			continue // an empty Series has no quantiles to list
		}
		fmt.Fprintf(b, "    %s = %s\n", q.name, num(q.v))
	}
	std := "nan"
	if st.Stddev != nil {
		std = genaiperf.PyRepr(*st.Stddev)
	}
	fmt.Fprintf(b, "    mean = %s\n    min = %s\n    max = %s\n    stddev = %s\n", num(st.Mean), extreme(st.Min), extreme(st.Max), std)
}

// errorCodeFrequency prints LLMPerf's dict of error codes by count, most
// frequent first: the HTTP status, or -1 (the client's initial
// error_response_code) for a failure without one.
func errorCodeFrequency(errs []metrics.ErrorCount) string {
	var keys []string
	counts := map[string]int{}
	for _, e := range errs {
		k := "-1"
		if e.Status != 0 {
			k = strconv.Itoa(e.Status)
		}
		if _, ok := counts[k]; !ok {
			keys = append(keys, k)
		}
		counts[k] += e.Count
	}
	// A stable sort by count keeps first-seen order among ties.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && counts[keys[j]] > counts[keys[j-1]]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, counts[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
