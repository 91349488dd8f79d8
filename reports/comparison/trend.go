package comparison

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/reports/verdict"
)

// Trend is a history on the console: for each point and metric of the
// baseline, its value in every run, oldest first, with each run's change
// from the baseline and verdict. history is the comparisons of the runs
// with one baseline, in run order. A point the oldest run lacks is listed
// too, in the order the runs first measured the points. When the newest
// comparison carries change points (Report.History), the first run at
// each new level is marked "◆" and each point's shifts are listed under
// its table, with their size and significance.
func Trend(history []*Report) reports.Reporter {
	return func(w io.Writer) error {
		if len(history) == 0 {
			return nil
		}
		return writeTrend(w, history)
	}
}

func writeTrend(w io.Writer, history []*Report) error {
	fmt.Fprintf(w, "\nHistory against %s (%d runs, oldest first):\n", history[0].Baseline, len(history))
	for _, p := range trendPoints(history) {
		fmt.Fprintf(w, "\n== %s ==\n", p.name())
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprint(tw, "metric\tbaseline")
		for _, r := range history {
			fmt.Fprintf(tw, "\t%s", r.Candidate)
		}
		fmt.Fprintln(tw)
		for _, c := range p.Metrics {
			name := c.Metric
			if c.Informational {
				name += " (informational: fails nothing)"
			}
			fmt.Fprintf(tw, "%s\t%s", name, value(c.Metric, c.Baseline))
			shifts := history[len(history)-1].History.at(p, c.Metric)
			for i, r := range history {
				cell := trendCell(r, p, c.Metric)
				if slices.ContainsFunc(shifts, func(s Shift) bool { return s.Run == i }) {
					cell += " ◆"
				}
				fmt.Fprintf(tw, "\t%s", cell)
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		writeShifts(w, history, p)
	}
	if cp := history[len(history)-1].History; cp != nil {
		fmt.Fprintf(w, "\n%s found (%s).\n", verdict.Plural(len(cp.Found), "change point"), cp.Method())
	}
	return nil
}

// writeShifts lists the change points of point p under its table.
func writeShifts(w io.Writer, history []*Report, p Point) {
	cp := history[len(history)-1].History
	names := historyNames(history)
	for _, c := range p.Metrics {
		for _, s := range cp.at(p, c.Metric) {
			fmt.Fprintf(w, "◆ change point: %s\n", s.describe(names[s.Run]))
		}
	}
}

// historyNames names each run of a history by its last folder names,
// as few as tell them apart (runNames), as the trend plots do.
func historyNames(history []*Report) []string {
	paths := make([]string, len(history))
	for i, r := range history {
		paths[i] = r.Candidate
	}
	return runNames(paths)
}

// trendCell is metric at point p in report r: its value, change and a
// mark for a regression, or "—" when r did not measure the point.
func trendCell(r *Report, p Point, metric string) string {
	c, ok := metricAt(r, p, metric)
	if !ok {
		return "—"
	}
	mark := ""
	switch c.Verdict {
	case metrics.VerdictRegression:
		mark = " REGRESSION"
	case metrics.VerdictInconclusive:
		mark = " ?"
	}
	return fmt.Sprintf("%s (%s)%s", value(c.Metric, c.Candidate), change(c.Interval.Ratio), mark)
}
