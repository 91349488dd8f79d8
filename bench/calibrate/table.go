package main

import (
	"encoding/csv"
	"fmt"
	"github.com/llmbench/llmbench/runtime/calibrate"
	"math"
	"os"
	"strconv"
	"strings"
)

// row is one line of the tables: one gate (or "any gate") in one cell.
type row struct {
	Setup, Pool, Change, Gate string
	// Measured is the pool's measured change of the gate's metric (NaN
	// for "any gate" and the unchanged server).
	Measured float64
	// MDC is the median over the pairs of the gate's minimum detectable
	// change (NaN for "any gate").
	MDC                                        float64
	Pairs, Distinct, Regressions, Inconclusive int
	Goal                                       string
}

// anyGate names the row of pairs with any gate a regression.
const anyGate = "any gate"

// rowsOf lists the rows of every cell: for the unchanged server, the pairs
// that would fail (any gate) and each gate's false alarms; for a changed
// one, each metric it tests.
func rowsOf(res *results, sim bool) []row {
	var out []row
	for _, c := range res.Cells {
		base := row{Setup: c.Setup.Name, Pool: c.Pool.Name, Change: c.Pool.Change, Measured: math.NaN(), MDC: math.NaN(),
			Pairs: c.Tally.Pairs, Distinct: c.Tally.Distinct}
		gates := c.Pool.Tests
		if len(c.Pool.Tests) == 0 {
			r := base
			r.Gate, r.Regressions, r.Goal = anyGate, c.Tally.Failed, falseAlarmGoal(sim, c.Tally.Pairs)
			out = append(out, r)
			gates = gateNames
		}
		for _, g := range gates {
			r := base
			r.Gate, r.Regressions, r.Inconclusive, r.MDC = g, c.Tally.Regression[g], c.Tally.Inconclusive[g], calibrate.Median(c.Tally.MDC[g])
			if len(c.Pool.Tests) > 0 {
				r.Measured, r.Goal = res.Change[c.Pool.Name][g], detectionGoal(c.Pool)
			}
			out = append(out, r)
		}
	}
	return out
}

func falseAlarmGoal(sim bool, pairs int) string {
	if sim {
		return "≤ 1%"
	}
	return fmt.Sprintf("0 of %d", pairs)
}

// detectionGoal is what issue 26 asks of a change of this size.
func detectionGoal(p pool) string {
	switch {
	case p.Shift:
		return "100%"
	case p.Multiple > 0.999 && p.Multiple < 1.001:
		return "35–65%"
	}
	return "≥ 95%"
}

// renderMarkdown is the tables with what they were measured on: a header
// saying when, where and by which command, then one table per setup.
func renderMarkdown(rows []row, before map[string]string, head string) string {
	var b strings.Builder
	b.WriteString(head)
	setup := ""
	for _, r := range rows {
		if r.Setup != setup {
			setup = r.Setup
			fmt.Fprintf(&b, "\n**%s**\n\n", setup)
			b.WriteString("| Server change (how made) | Gate | Measured change | Pairs (distinct runs) | Called regression | 95% Wilson interval | Inconclusive | Median MDC | Goal |")
			if before != nil {
				b.WriteString(" Before |")
			}
			b.WriteString("\n|---|---|---|---|---|---|---|---|---|")
			if before != nil {
				b.WriteString("---|")
			}
			b.WriteString("\n")
		}
		inc := strconv.Itoa(r.Inconclusive)
		if r.Gate == anyGate {
			inc = "–"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d (%d) | %s | %s | %s | %s | %s |", r.Change, r.Gate, calibrate.Signed(r.Measured), r.Pairs, r.Distinct,
			calibrate.Rate(r.Regressions, r.Pairs), calibrate.Interval(r.Regressions, r.Pairs), inc, calibrate.Unsigned(r.MDC), or(r.Goal, "–"))
		if before != nil {
			fmt.Fprintf(&b, " %s |", or(before[r.key()], "–"))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (r row) key() string { return r.Setup + "\x00" + r.Pool + "\x00" + r.Gate }

var csvHeader = []string{"setup", "pool", "change", "gate", "measured_change", "pairs", "distinct_runs",
	"regressions", "rate", "wilson95_low", "wilson95_high", "inconclusive", "median_mdc", "goal"}

// writeCSV writes the rows, one per line, for a later -before or a plot.
func writeCSV(path string, rows []row) error {
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write(csvHeader)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	for _, r := range rows {
		lo, hi := calibrate.Wilson(r.Regressions, r.Pairs, calibrate.Z95)
		_ = w.Write([]string{r.Setup, r.Pool, r.Change, r.Gate, f(r.Measured), strconv.Itoa(r.Pairs), strconv.Itoa(r.Distinct),
			strconv.Itoa(r.Regressions), f(float64(r.Regressions) / float64(max(r.Pairs, 1))), f(lo), f(hi), strconv.Itoa(r.Inconclusive), f(r.MDC), r.Goal})
	}
	w.Flush()
	return writeFile(path, []byte(b.String()))
}

// readBefore reads a -csv file (of this or an earlier version, found by
// its column names) as the before column: "k/n = x%" per setup, pool and
// gate.
func readBefore(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("-before %s: %w", path, err)
	}
	col := map[string]int{}
	if len(recs) > 0 {
		for i, name := range recs[0] {
			col[name] = i
		}
	}
	for _, name := range []string{"setup", "pool", "gate", "pairs", "regressions"} {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("-before %s: not a calibrate -csv file (its first line has no column %q)", path, name)
		}
	}
	out := map[string]string{}
	for i, r := range recs[1:] {
		pairs, err1 := strconv.Atoi(r[col["pairs"]])
		k, err2 := strconv.Atoi(r[col["regressions"]])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("-before %s:%d: pairs and regressions must be whole numbers", path, i+2)
		}
		out[row{Setup: r[col["setup"]], Pool: r[col["pool"]], Gate: r[col["gate"]]}.key()] = calibrate.Rate(k, pairs)
	}
	return out, nil
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
