package main

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// renderMarkdown is the calibration's report: a line saying what was
// measured and how long it took, the false-alarm table, the power table
// when candidates were slowed, and which metrics raised the false alarms.
func renderMarkdown(res *results, st *store, c config) string {
	var b strings.Builder
	runs := len(st.Runs)
	fmt.Fprintf(&b, "Setup: %s. %d rounds, %d runs (%d per side per round), measured in %s on %s.\n\n",
		c.describe(), st.Rounds, runs, st.PerSide, st.Elapsed.Round(time.Second), st.Machine)
	b.WriteString(falseAlarmTable(res, targetName(c), c.Repeats, c.Tolerances))
	if len(st.Sides) > 2 {
		b.WriteString("\n")
		b.WriteString(powerTable(res, st.Sides, c.Repeats, c.Tolerances))
	}
	b.WriteString("\n")
	b.WriteString(alarmMetrics(res, c.Repeats, c.Tolerances))
	b.WriteString("\nNoise of identical pairs: is each interval as wide as the pairs really differ?\n\n")
	b.WriteString(noiseTable(res, c.Repeats, c.Tolerances[0]))
	return b.String()
}

func targetName(c config) string {
	if c.isSim() {
		return "simulator"
	}
	return c.Model + " at " + c.Target
}

// falseAlarmTable has one row per repeats × tolerance for the identical
// candidate (side 1): how often compare would fail a run that changed
// nothing, with Holm (as compare judges) and without.
func falseAlarmTable(res *results, target string, repeats []int, tols []float64) string {
	var b strings.Builder
	b.WriteString("| Target | Repeats | Tolerance | Pairs | False alarms (compare exits 1) | 95% Wilson interval | Without Holm |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range repeats {
		for _, tol := range tols {
			t := res.Cells[cellKey{Side: 1, Repeats: r, Tolerance: tol}]
			if t == nil {
				continue
			}
			fmt.Fprintf(&b, "| %s | %d (%s) | %s | %d | %s | %s | %s |\n", target, r, method(r), tolName(tol), t.Pairs,
				rate(t.Failed, t.Pairs), interval(t.Failed, t.Pairs), rate(t.FailedNoHolm, t.Pairs))
		}
	}
	return b.String()
}

// powerTable has one row per slowdown × repeats × tolerance: how often
// each ITL metric, either of them, and the run as a whole were called a
// regression.
func powerTable(res *results, sides []side, repeats []int, tols []float64) string {
	var b strings.Builder
	b.WriteString("| ITL slowdown | Measured change itl.p50 / itl.p99 | Repeats | Tolerance | Pairs | itl.p50 regression | itl.p99 regression | Any ITL metric | 95% Wilson interval (any ITL) | Compare exits 1 (any metric) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for s := 2; s < len(sides); s++ {
		for _, r := range repeats {
			for _, tol := range tols {
				t := res.Cells[cellKey{Side: s, Repeats: r, Tolerance: tol}]
				if t == nil {
					continue
				}
				fmt.Fprintf(&b, "| %s | %s / %s | %d | %s | %d | %s | %s | %s | %s | %s |\n", pct(sides[s].Slowdown),
					change(t.Spread["itl.p50"]), change(t.Spread["itl.p99"]), r, tolName(tol), t.Pairs,
					rate(t.Metric["itl.p50"], t.Pairs), rate(t.Metric["itl.p99"], t.Pairs), rate(t.ITL, t.Pairs),
					interval(t.ITL, t.Pairs), rate(t.Failed, t.Pairs))
			}
		}
	}
	return b.String()
}

// alarmMetrics lists, per false-alarm row, which metrics were called a
// regression and how often (after Holm, and before it in parentheses), so
// a high rate can be traced to the metric and method behind it.
func alarmMetrics(res *results, repeats []int, tols []float64) string {
	var b strings.Builder
	b.WriteString("False regressions per metric, after Holm (before Holm):\n\n")
	for _, r := range repeats {
		for _, tol := range tols {
			t := res.Cells[cellKey{Side: 1, Repeats: r, Tolerance: tol}]
			if t == nil {
				continue
			}
			var parts []string
			for _, m := range res.Metrics {
				if t.Metric[m] > 0 || t.MetricNoHolm[m] > 0 {
					parts = append(parts, fmt.Sprintf("%s %d (%d)", m, t.Metric[m], t.MetricNoHolm[m]))
				}
			}
			if len(parts) == 0 {
				parts = []string{"none"}
			}
			fmt.Fprintf(&b, "- %d repeats, tolerance %s, %d pairs: %s (methods: %s)\n", r, tolName(tol), t.Pairs,
				strings.Join(parts, ", "), strings.Join(sortedKeys(t.Methods), ", "))
		}
	}
	return b.String()
}

// noiseTable says, per metric and repeats, whether compare's intervals
// are as wide as the real noise of identical pairs. SD is the standard
// deviation of ln(candidate/baseline) over the pairs and robust SD the
// same without outliers (1.4826 × MAD); the half-width is the mean of
// (ln hi − ln lo)/2. A calibrated 95% interval has a half-width near
// 1.96 × SD and contains 1 in about 95% of identical pairs; a last-but-one
// column well below 1 means the method sees less noise than the typical
// pair has.
func noiseTable(res *results, repeats []int, tol float64) string {
	var b strings.Builder
	b.WriteString("| Repeats | Metric | SD of ln ratio | Robust SD | Mean half-width (ln) | Half-width / (1.96 × robust SD) | Intervals containing 1 |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range repeats {
		t := res.Cells[cellKey{Side: 1, Repeats: r, Tolerance: tol}]
		if t == nil {
			continue
		}
		for _, m := range res.Metrics {
			s := t.Spread[m]
			if s == nil || len(s.LogRatio) < 2 {
				fmt.Fprintf(&b, "| %d | %s | – | – | – | – | – (no finite interval: 0 on both sides, or a tail too thin to bound) |\n", r, m)
				continue
			}
			sd, rsd, half := s.sd(), s.robustSD(), mean(s.LogHalfWidth)
			fmt.Fprintf(&b, "| %d | %s | %.4f | %.4f | %.4f | %.2f | %s |\n", r, m, sd, rsd, half, half/(z95*rsd), rate(s.Covers, len(s.LogRatio)))
		}
	}
	return b.String()
}

// change is the geometric mean ratio of a cell as a signed percentage.
func change(s *spread) string {
	if s == nil || len(s.LogRatio) == 0 {
		return "–"
	}
	return fmt.Sprintf("%+.1f%%", 100*(s.meanRatio()-1))
}

// method names compare's method for r repeats on each side.
func method(r int) string {
	if r >= 2 {
		return "Welch"
	}
	return "bootstrap"
}

func tolName(tol float64) string {
	if tol == 0 {
		return "0"
	}
	return pct(tol)
}

// rate is "k/n = x.x%".
func rate(k, n int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d = %.1f%%", k, n, 100*float64(k)/float64(n))
}

// interval is the 95% Wilson interval of k/n as "lo%–hi%".
func interval(k, n int) string {
	lo, hi := wilson(k, n, z95)
	return fmt.Sprintf("%.1f%%–%.1f%%", 100*lo, 100*hi)
}

// pct writes a share as compact percent: 0.05 → "5%", 0.125 → "12.5%".
func pct(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e6)/1e4, 'f', -1, 64) + "%"
}

// sortedKeys is for deterministic output of maps.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
