package genaiperf

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
)

// consoleStats are the statistic columns of GenAI-Perf's console table.
var consoleStats = []string{"avg", "min", "max", "p99", "p90", "p75"}

// nameWidth is where GenAI-Perf wraps metric names in the console table.
const nameWidth = 36

// WriteConsole writes GenAI-Perf's console table — the "NVIDIA GenAI-Perf |
// LLM Metrics" Rich table, as plain text without colors — followed by
// llmbench's additions as plain lines under it (see consoleAdditions), so a
// reader who knows GenAI-Perf's table finds it unchanged.
func WriteConsole(w io.Writer, r *Run, s *metrics.Summary) error {
	t := richTable{title: consoleTitle(r), header: append([]string{"Statistic"}, consoleStats...)}
	for _, m := range tableMetrics(r) {
		t.rows = append(t.rows, append([]string{fill(m.label(), nameWidth)}, statCells(m.dist(s), consoleStats)...))
	}
	for _, m := range systemMetrics(r, s) {
		row := []string{fill(m.label(), nameWidth), valueCell(m.value)}
		for range consoleStats[1:] {
			row = append(row, notAvailable)
		}
		t.rows = append(t.rows, row)
	}
	_, err := io.WriteString(w, t.render()+consoleAdditions(r, s))
	return err
}

// consoleTitle names the table after the endpoint type as GenAI-Perf does.
func consoleTitle(r *Run) string {
	switch r.EndpointType {
	case "embeddings":
		return "NVIDIA GenAI-Perf | Embeddings Metrics"
	case "rankings":
		return "NVIDIA GenAI-Perf | Rankings Metrics"
	case "image_retrieval":
		return "NVIDIA GenAI-Perf | Image Retrieval Metrics"
	}
	return "NVIDIA GenAI-Perf | LLM Metrics"
}

// consoleAdditions renders what llmbench measures beyond GenAI-Perf as a
// few lines, each present only when it says something:
//
//	Requests: 98 completed, 2 failed, error rate 2.00%
//	Errors:
//	  2  http 500: upstream overloaded
//	Token counting: tokenizer
//	Prefix cache: 37.50% of 51,200 prompt tokens served from the server's cache (100 requests reporting)
//	Time To First Output Token (ms): avg 410.20, p50 402.00, p99 611.35
//	Schedule lag (ms): p50 0.02, p99 1.37
//	From the schedule: TTFT p50 9.50, p99 411.79 ms, request latency p50 15.00, p99 421.70 ms (open loop: includes time requests waited to be sent)
//	Request rate (per sec): achieved 9.87, target 10.00 (poisson)
//	Concurrency: 15.91 in flight on average, target 16
func consoleAdditions(r *Run, s *metrics.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Requests: %d completed, %d failed, error rate %s%%\n",
		s.Completed, s.Failed, pyComma2(s.ErrorRate*100))
	b.WriteString(errorLines(s.Errors))
	if s.Retried > 0 {
		fmt.Fprintf(&b, "Retried on a fresh connection: %d (the request never reached the server: it had closed the keep-alive connection; not errors)\n", s.Retried)
	}
	if r.isLLM() && r.TokenCounting != "" {
		fmt.Fprintf(&b, "Token counting: %s\n", r.TokenCounting)
	}
	b.WriteString(mediaLine(s.Media))
	if c := s.PrefixCache; c != nil {
		fmt.Fprintf(&b, "Prefix cache: %s%% of %s prompt tokens served from the server's cache (%d requests reporting)\n",
			pyComma2(100*c.Share), strings.TrimSuffix(pyComma2(float64(c.PromptTokens)), ".00"), c.Requests)
	}
	if d := mTTFO.dist(s); d != nil && r.isLLM() {
		fmt.Fprintf(&b, "%s: avg %s, p50 %s, p99 %s\n", mTTFO.label(), pyComma2(d.Avg), pyComma2(d.P50), pyComma2(d.P99))
	}
	if d := mScheduleLag.dist(s); d != nil {
		fmt.Fprintf(&b, "Schedule lag (ms): p50 %s, p99 %s\n", pyComma2(d.P50), pyComma2(d.P99))
	}
	b.WriteString(fromScheduleLine(r, s))
	b.WriteString(loadLine(r, s))
	return b.String()
}

// fromScheduleLine sets the latencies measured from each request's planned
// send instant beside the table's, which start at the actual send: in an
// open loop they differ by the time a request waited to be sent (SPEC
// §12). TTFT is left out where the table leaves it out (not streaming).
func fromScheduleLine(r *Run, s *metrics.Summary) string {
	lat := mLatencyFromSchedule.dist(s)
	if lat == nil {
		return ""
	}
	var parts []string
	if ttft := mTTFTFromSchedule.dist(s); ttft != nil && r.isLLM() && r.Streaming {
		parts = append(parts, fmt.Sprintf("TTFT p50 %s, p99 %s ms", pyComma2(ttft.P50), pyComma2(ttft.P99)))
	}
	parts = append(parts, fmt.Sprintf("request latency p50 %s, p99 %s ms", pyComma2(lat.P50), pyComma2(lat.P99)))
	return "From the schedule: " + strings.Join(parts, ", ") +
		" (open loop: includes time requests waited to be sent)\n"
}

// errorLines lists the error groups, count first, right-aligned.
func errorLines(errs []metrics.ErrorCount) string {
	if len(errs) == 0 {
		return ""
	}
	width := 0
	for _, e := range errs {
		width = max(width, len(strconv.Itoa(e.Count)))
	}
	var b strings.Builder
	b.WriteString("Errors:\n")
	for _, e := range errs {
		fmt.Fprintf(&b, "  %*d  %s\n", width, e.Count, errorLabel(e))
	}
	return b.String()
}

// errorLabel is "class[ status][: message]" on one line.
func errorLabel(e metrics.ErrorCount) string {
	label := string(e.Class)
	if e.Status != 0 {
		label += " " + strconv.Itoa(e.Status)
	}
	if msg := strings.Join(strings.Fields(e.Message), " "); msg != "" {
		label += ": " + msg
	}
	return label
}

// targetWord names what the load line compares with: the target, or a
// stages() load's peak over the whole point.
func targetWord(st Stimulus) string {
	if st.Staged {
		return "over its stages, peak"
	}
	return "target"
}

// loadLine compares the load achieved with the load asked for, so a client
// that could not keep up is visible next to the latencies it distorted.
func loadLine(r *Run, s *metrics.Summary) string {
	switch st := r.Stimulus; {
	case st.Users > 0:
		return fmt.Sprintf("Users: %d pacing their turns at %s req/s in total; achieved %s req/s, %s requests in flight on average\n",
			st.Users, pyComma2(st.UserRate), pyComma2(s.AchievedRequestRate), pyComma2(s.MeanConcurrency))
	case st.SessionRate > 0:
		return fmt.Sprintf("Sessions: %s started per second (%s), requests achieved %s per second\n",
			pyComma2(st.SessionRate), r.RequestDistribution, pyComma2(s.AchievedRequestRate))
	case st.SessionConcurrency > 0:
		return fmt.Sprintf("Sessions: %d at once, %s requests in flight on average (a session thinking between turns holds none)\n",
			st.SessionConcurrency, pyComma2(s.MeanConcurrency))
	}
	if r.Stimulus.Mode() == "request_rate" {
		if s.AchievedRequestRate <= 0 {
			return ""
		}
		if r.Stimulus.FixedSchedule {
			return fmt.Sprintf("Request rate (per sec): achieved %s, following the inputs' timestamps\n",
				pyComma2(s.AchievedRequestRate))
		}
		dist := ""
		if r.RequestDistribution != "" {
			dist = " (" + r.RequestDistribution + ")"
		}
		return fmt.Sprintf("Request rate (per sec): achieved %s, %s %s%s\n",
			pyComma2(s.AchievedRequestRate), targetWord(r.Stimulus), pyComma2(r.Stimulus.RequestRate), dist)
	}
	if s.MeanConcurrency <= 0 {
		return ""
	}
	return fmt.Sprintf("Concurrency: %s in flight on average, %s %d\n",
		pyComma2(s.MeanConcurrency), targetWord(r.Stimulus), r.Stimulus.concurrency())
}
