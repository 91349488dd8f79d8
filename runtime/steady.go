package runtime

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/engine"
)

// SteadyOutcome is what an auto point's steady-state rule did: how many
// requests it needed, the interval widths it reached, whether it stopped
// on the rule or hit its cap, and the warm-up it dropped. It is saved in
// the point record and summary.json.
type SteadyOutcome struct {
	Rule metrics.SteadyRule `json:"rule"`
	// Metrics are the metrics judged (ttft and itl, or request_latency).
	Metrics []string `json:"metrics"`
	// Converged is set when the rule stopped the point; unset when the
	// cap (or an interrupt) came first: the point is measured but its
	// percentiles are not known to ±CI.
	Converged bool `json:"converged"`
	// Requests is how many measured requests the rule needed (those of
	// the check that met it) or, not converged, how many were measured
	// before the cap.
	Requests int `json:"requests"`
	// Measured counts every measured request, those still in flight when
	// the rule stopped the point included (they finish and count).
	Measured int `json:"measured"`
	// Warmup is how many leading requests were dropped as the start-up
	// transient, by WarmupMethod: the first Warmup rows of records.parquet,
	// which were written before the cut was known (readers flag them).
	Warmup       int    `json:"warmup"`
	WarmupMethod string `json:"warmup_method"`
	// Check is the deciding check: the one that met the rule, or the
	// rule applied to every request when the cap came first. Previous is
	// the check before it, which had not met the rule.
	Check    metrics.SteadyCheck  `json:"check"`
	Previous *metrics.SteadyCheck `json:"previous,omitempty"`
}

// Summary is the outcome in one line, for the console and report.html.
func (s *SteadyOutcome) Summary() string {
	if r := s.Rule.Stability; r != nil {
		return s.windowSummary(r)
	}
	widest := fmt.Sprintf("±%.1f%%", 100*s.Check.Widest())
	if w := s.Check.Widest(); w > 1e6 || w != w {
		widest = "unbounded"
	}
	warm := fmt.Sprintf("%d warm-up requests dropped (%s)", s.Warmup, s.WarmupMethod)
	if s.Converged {
		return fmt.Sprintf("converged after %d requests (widest CI %s ≤ ±%g%%), %s",
			s.Requests, widest, 100*s.Rule.CI, warm)
	}
	return fmt.Sprintf("NOT converged: cap reached after %d requests, widest CI %s > ±%g%%, %s",
		s.Requests, widest, 100*s.Rule.CI, warm)
}

// windowSummary is a windowed rule's outcome: the windows measured, the
// last three's throughput and latency, their spreads against the
// percentage, and the warm-up their predecessors made.
func (s *SteadyOutcome) windowSummary(r *metrics.StabilityRule) string {
	ws := s.Check.Windows
	var last []string
	for _, w := range ws[max(0, len(ws)-metrics.StableWindows):] {
		last = append(last, fmt.Sprintf("%.2f req/s %.2f ms", w.Throughput, w.Latency/1e6))
	}
	window := time.Duration(r.Window)
	spreads := "fewer than 3 windows"
	if len(s.Check.Widths) == 2 {
		spreads = fmt.Sprintf("throughput ±%s, latency ±%s", percent(s.Check.Widths[0].Width), percent(s.Check.Widths[1].Width))
	}
	verdict := "stable"
	if !s.Converged {
		verdict = "NOT stable"
	}
	return fmt.Sprintf("%s after %d windows of %v (last %d: %s; spreads %s, rule ≤ %g%%), %d warm-up requests dropped (%s)",
		verdict, len(ws), window, len(last), strings.Join(last, ", "), spreads, r.Percentage, s.Warmup, s.WarmupMethod)
}

// percent prints a spread as a percentage, "∞" when unbounded.
func percent(v float64) string {
	if math.IsInf(v, 0) || v != v {
		return "∞"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// steadyReduction holds an auto point's records for its summaries until
// the point ends: the warm-up cut is known only then, and each record
// must be flagged before it is summarized. They are written as they
// finish, unflagged (reduction.write), so only what the summaries read
// is held: the response text is dropped. Memory therefore grows with the
// point (bounded by its cap); a fixed-count point holds nothing.
type steadyReduction struct {
	checker *metrics.SteadyChecker
	halt    *engine.Halt
	recs    []metrics.Record
	met     *metrics.SteadyCheck
	prev    *metrics.SteadyCheck
	out     SteadyOutcome
}

func newSteadyReduction(rule metrics.SteadyRule, stream bool, halt *engine.Halt) *steadyReduction {
	ms := metrics.SteadyMetrics(stream)
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	method := "MSER-5"
	if rule.Stability != nil {
		method, names = "windows before the stable ones", []string{"throughput", "request_latency"}
	}
	return &steadyReduction{checker: metrics.NewSteadyChecker(rule, ms), halt: halt,
		out: SteadyOutcome{Rule: rule, Metrics: names, WarmupMethod: method}}
}

// add takes the next finished record; the first check that meets the
// rule halts the point.
func (s *steadyReduction) add(rec metrics.Record) {
	rec.Output, rec.ChunkEnds = "", nil // written already; no summary reads the text
	s.recs = append(s.recs, rec)
	if s.met != nil {
		return
	}
	before := s.checker.Last()
	chk := s.checker.Add(&rec)
	if chk != nil && chk.Met {
		s.met, s.prev = chk, before
		s.halt.Stop()
	}
}

// finish decides the outcome and returns the records, the warm-up ones
// flagged: the first Warmup, in the order they were added and written.
func (s *steadyReduction) finish() ([]metrics.Record, *SteadyOutcome) {
	o := &s.out
	o.Measured = len(s.recs)
	if s.met != nil {
		o.Converged, o.Check, o.Previous = true, *s.met, s.prev
	} else {
		o.Check, o.Previous = s.checker.Check(), s.checker.Last()
	}
	o.Requests, o.Warmup = o.Check.Requests, o.Check.Warmup
	for i := range o.Warmup {
		s.recs[i].Warmup = true
	}
	return s.recs, o
}
