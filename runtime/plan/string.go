package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
)

// String is the plan as `llmbench check` shows it: every setting as the
// scenario wrote it, the points it will run (or what chooses them), its
// baseline and its gates; nothing is sent to know it.
func (e *Experiment) String() string { return e.Describe(true) }

// Describe is String, saying when the baseline was not loaded (a run's
// wiring, not the plan's: its baseline gates are then skipped).
func (e *Experiment) Describe(baselineLoaded bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "experiment %q\n", e.Name)
	fmt.Fprintf(&b, "  endpoint:  %s\n", e.Endpoint)
	fmt.Fprintf(&b, "  dataset:   %s\n", e.Dataset)
	fmt.Fprintf(&b, "  traffic:   %s\n", e.Load)
	fmt.Fprintf(&b, "  per point: %s, warmup %d, repeats %d\n", e.StopText(), e.Warmup, max(e.Repeats, 1))
	if e.AB != nil {
		fmt.Fprintf(&b, "  ab:        %s\n", e.AB)
	}
	if len(e.Goodput) > 0 {
		slos := make([]string, len(e.Goodput))
		for j, slo := range e.Goodput {
			slos[j] = fmt.Sprintf("%s:%g", slo.Metric, slo.Value)
		}
		fmt.Fprintf(&b, "  goodput:   %s\n", strings.Join(slos, " "))
	}
	if e.Adaptive() {
		fmt.Fprintf(&b, "  points:    chosen while running by %s\n", e.Sweep)
	} else {
		points, _ := e.Points() // a validated plan's points are known
		labels := make([]string, len(points))
		for j, p := range points {
			labels[j] = p.Params.Label() + loadText(p.Load)
		}
		fmt.Fprintf(&b, "  points (%d): %s\n", len(points), strings.Join(labels, ", "))
	}
	switch {
	case e.Baseline != "" && baselineLoaded:
		fmt.Fprintf(&b, "  baseline:  %s\n", e.Baseline)
	case e.Baseline != "":
		fmt.Fprintf(&b, "  baseline:  %s (not loaded: baseline gates skipped)\n", e.Baseline)
	}
	for _, g := range e.Gates {
		fmt.Fprintf(&b, "  gate:      %s\n", gateText(g))
	}
	return b.String()
}

// StopText is what ends each point's measurement, in words: "100
// requests", "for 1m0s", "20 sessions", or the steady-state rule with its
// cap. It is how big each run of a point is.
func (e *Experiment) StopText() string {
	if r := e.Steady; r != nil {
		limit := fmt.Sprintf("%d requests", e.Requests)
		if e.Duration > 0 {
			limit = e.Duration.String()
		}
		return fmt.Sprintf("until p50/p99 CIs are within ±%g%% (at least %d requests after the warm-up, at most %s)", 100*r.CI, r.MinRequests, limit)
	}
	switch {
	case e.Duration > 0:
		return "for " + e.Duration.String()
	case e.Sessions > 0: // conversations stopped by a count of sessions, each run to its last turn
		return fmt.Sprintf("%d sessions", e.Sessions)
	}
	return fmt.Sprintf("%d requests", e.Requests)
}

// gateText is a gate as written, with the currency a cost gate is
// counted in when the gate does not say it.
func gateText(g metrics.Gate) string {
	if g.Currency != "" && !strings.Contains(g.Source, g.Currency) {
		return g.Source + " (" + g.Currency + " per Mtok)"
	}
	return g.Source
}

// loadText is what a point's label leaves out of its load: an open loop's
// arrivals and cap, users' rate.
func loadText(l Load) string {
	if l.Paced() {
		return " (qps=" + strconv.FormatFloat(l.Rate, 'g', -1, 64) + ")"
	}
	if l.Closed() {
		return ""
	}
	s := " (" + string(l.Arrival)
	if l.MaxConcurrency > 0 {
		s += fmt.Sprintf(", max %d in flight", l.MaxConcurrency)
	}
	return s + ")"
}
