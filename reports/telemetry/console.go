package telemetry

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/runtime"
)

// Console prints a point's telemetry in at most three lines — the GPUs
// (power, energy, J/token, utilisation, cost), the server's queue and KV
// cache, the server's latencies beside the client's — then every warning
// (a URL dropped, scrapes failed, a gap, a simulated source left out).
// Each line about the simulator's made-up metrics says "simulated" in its
// heading. Nothing when nothing was scraped.
func Console(pt *runtime.PointTelemetry, client *metrics.Summary) reports.Reporter {
	var lines []string
	if pt != nil {
		t := &pt.Summary
		for _, line := range []string{gpuLine(t), serverLine(&t.Server, t.Simulated), tokenLine(&t.Server, t.Simulated), latencyLine(t, client)} {
			if line != "" {
				lines = append(lines, line)
			}
		}
		for _, warn := range pt.AllWarnings() {
			lines = append(lines, "warning: "+warn)
		}
	}
	return func(w io.Writer) error {
		for _, line := range lines {
			if _, err := fmt.Fprintln(w, line); err != nil {
				return err
			}
		}
		return nil
	}
}

func gpuLine(t *metrics.TelemetrySummary) string {
	if len(t.GPUs) == 0 {
		return ""
	}
	parts := []string{fmt.Sprintf("%s: %d (%s)", heading("GPU", t.Simulated), len(t.GPUs), gpuNames(t))}
	if t.Power != nil {
		parts = append(parts, fmt.Sprintf("%.1f W avg, %.1f W p99 in total", t.Power.Avg, t.Power.Percentile(99)))
	}
	if t.Energy.OK {
		parts = append(parts, fmt.Sprintf("%s over the point", joules(t.Energy.Value)))
	}
	if t.EnergyPerToken.OK {
		parts = append(parts, fmt.Sprintf("%.3f J/token (%.2f tokens/J)", t.EnergyPerToken.Value, t.TokensPerJoule.Value))
	} else if t.EnergyPerToken.Why != "" {
		parts = append(parts, "J/token unknown: "+t.EnergyPerToken.Why)
	}
	if t.Utilization != nil {
		parts = append(parts, fmt.Sprintf("utilisation %.0f%%", t.Utilization.Avg))
	}
	if t.CostPerMillionTokens.OK {
		parts = append(parts, fmt.Sprintf("%.2f %s per million output tokens", t.CostPerMillionTokens.Value, Currency(t)))
	}
	return strings.Join(parts, ", ")
}

// Currency is the label of the point's costs, EUR when none was given
// (the design article's).
func Currency(t *metrics.TelemetrySummary) string {
	if t.Window.Currency == "" {
		return "EUR"
	}
	return t.Window.Currency
}

func gpuNames(t *metrics.TelemetrySummary) string {
	names := make([]string, len(t.GPUs))
	for i, g := range t.GPUs {
		names[i] = g.GenAIPerfKey
		if g.ModelName != "" && i == 0 {
			names[i] += " " + g.ModelName
		}
	}
	return strings.Join(names, ", ")
}

func joules(j float64) string {
	switch {
	case j >= 1e6:
		return fmt.Sprintf("%.2f MJ", j/1e6)
	case j >= 1e3:
		return fmt.Sprintf("%.2f kJ", j/1e3)
	}
	return fmt.Sprintf("%.1f J", j)
}

// heading is a console line's heading, with "(simulated)" after it when
// its figures are the simulator's.
func heading(what string, simulated bool) string {
	if simulated {
		return what + " (simulated)"
	}
	return what
}

func serverLine(s *metrics.ServerTelemetry, simulated bool) string {
	var parts []string
	if s.Running != nil {
		parts = append(parts, fmt.Sprintf("running %.1f avg / %.0f max", s.Running.Avg, s.Running.Max))
	}
	if s.Waiting != nil {
		parts = append(parts, fmt.Sprintf("waiting %.1f avg / %.0f max", s.Waiting.Avg, s.Waiting.Max))
	}
	if s.KVCacheUsage != nil {
		parts = append(parts, fmt.Sprintf("KV cache %.1f%% peak", s.KVCacheUsage.Max))
	}
	if s.PrefixCacheHitRate.OK {
		parts = append(parts, fmt.Sprintf("prefix-cache hits %.1f%%", 100*s.PrefixCacheHitRate.Value))
	}
	if s.Preemptions.OK {
		parts = append(parts, fmt.Sprintf("preemptions %.0f", s.Preemptions.Value))
	}
	if len(parts) == 0 {
		return ""
	}
	engines := slices.Clone(s.Engines)
	if simulated {
		engines = append(engines, "simulated")
	}
	return "Server (" + strings.Join(engines, ", ") + "): " + strings.Join(parts, ", ")
}

// tokenLine says what the server counted over its window: the prompt
// tokens it prefilled (with those its cache served) and the tokens it
// generated, then why its requests finished, "length" (max_tokens
// reached) and "stop" (the model ended) always, other reasons when any
// request had one: a run meant to measure fixed output lengths whose
// requests stopped early shows here.
func tokenLine(s *metrics.ServerTelemetry, simulated bool) string {
	var parts []string
	if s.PromptTokens.OK {
		p := fmt.Sprintf("%s prompt", thousands(s.PromptTokens.Value))
		if s.CachedPromptTokens.OK {
			p += fmt.Sprintf(" (%s cached)", thousands(s.CachedPromptTokens.Value))
		}
		parts = append(parts, p)
	}
	if s.GenerationTokens.OK {
		parts = append(parts, fmt.Sprintf("%s generated", thousands(s.GenerationTokens.Value)))
	}
	if len(s.FinishReasons) > 0 {
		var why []string
		for _, f := range s.FinishReasons {
			if f.Count > 0 || f.Reason == "length" || f.Reason == "stop" {
				why = append(why, fmt.Sprintf("%s %s", thousands(f.Count), f.Reason))
			}
		}
		parts = append(parts, "finished: "+strings.Join(why, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return heading("Server tokens", simulated) + ": " + strings.Join(parts, ", ")
}

// latencyLine says the server's own TTFT, request latency and queue
// time: each exact mean, and its p99 as the histogram bucket it falls in
// ("p99 in (100, 250] ms", "≤ 300 ms"), never as a point a client p99
// could be set against. Beside a mean, the client's mean of the same
// quantity and the difference, named for what it holds
// (metrics.GapName); TTFT only when the client timed a first token, so a
// non-streamed run compares request latency alone. A server mean above
// the client's is no such figure: it says the windows differ
// (metrics.WindowsDiffer), never a negative time. Counts that differ are
// said too: the means are then over different requests.
func latencyLine(t *metrics.TelemetrySummary, client *metrics.Summary) string {
	var parts []string
	for _, m := range []struct{ metric, name string }{{metrics.LatencyTTFT, "TTFT"}, {metrics.LatencyRequestLatency, "request latency"}, {metrics.LatencyQueueTime, "queue"}} {
		l := t.Server.Latency(m.metric)
		if l == nil || !l.OK || math.IsNaN(l.Mean) {
			continue
		}
		part := serverStat(m.name, l)
		gap, err := metrics.CompareServerLatency(m.metric, client, t)
		switch {
		case err == nil:
			part += " (" + gapWords(gap) + ")"
		case errors.Is(err, metrics.ErrNoFirstToken):
			part += " (not compared: not streamed, so the client's TTFT is its whole answer)"
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	return heading("Server latency", t.Simulated) + ": " + strings.Join(parts, ", ")
}

// serverStat is a server latency's exact mean and its p99's bucket.
func serverStat(name string, l *metrics.ServerLatency) string {
	s := fmt.Sprintf("%s %.2f ms mean", name, l.Mean/1e6)
	if l.P99In != nil {
		s += ", p99 " + l.P99In.Format(1e3, "ms")
	}
	return s
}

// gapWords is the client's mean beside the server's and what the
// difference holds.
func gapWords(gap metrics.ServerClientGap) string {
	diff := metrics.WindowsDiffer
	if gap.Difference.OK {
		diff = fmt.Sprintf("%+.2f ms %s", gap.Difference.Value/1e6, metrics.GapName)
	}
	if gap.ServerCount != gap.ClientCount {
		diff += fmt.Sprintf("; the server counted %.0f requests, the client %.0f", gap.ServerCount, gap.ClientCount)
	}
	return fmt.Sprintf("client mean %.2f ms: %s", gap.Client/1e6, diff)
}

// thousands writes a count rounded to a whole number with a comma
// between thousands, as the console writes token counts ("8,400").
func thousands(v float64) string {
	s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
