package comparison

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/reports/verdict"
)

// Table is the console's comparison: one table per point, each
// metric's baseline and candidate value in report units, the relative
// change with its interval, and the verdict.
func Table(r *Report) reports.Reporter {
	return func(w io.Writer) error {
		fmt.Fprintf(w, "Baseline:  %s\nCandidate: %s\n", r.Baseline, r.Candidate)
		for _, p := range r.Points {
			fmt.Fprintf(w, "\n== %s ==\n", p.name())
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "metric\tbaseline\tcandidate\tchange\tinterval\tmethod\tverdict")
			for _, c := range p.Metrics {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Metric, value(c.Metric, c.Baseline), value(c.Metric, c.Candidate),
					change(c.Interval.Ratio), interval(c.Interval), c.Interval.Method, verdictText(c))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
		for _, u := range r.Unmatched {
			fmt.Fprintf(w, "unmatched: %s\n", u)
		}
		for _, warn := range r.Warnings {
			fmt.Fprintf(w, "warning: %s\n", warn)
		}
		_, err := fmt.Fprintf(w, "\n%s\n", Headline(r))
		return err
	}
}

// Headline is the comparison in one line: regressions named first.
func Headline(r *Report) string {
	regs := r.Regressions()
	if len(regs) == 0 {
		return fmt.Sprintf("no regression beyond the tolerance (%d improvements, %d inconclusive, %d no significant change)",
			r.Count(metrics.VerdictImprovement), r.Count(metrics.VerdictInconclusive), r.Count(metrics.VerdictNoChange))
	}
	names := make([]string, len(regs))
	for i, c := range regs {
		names[i] = fmt.Sprintf("%s %s %s", c.Point, c.Metric, change(c.Interval.Ratio))
	}
	return fmt.Sprintf("%d regressions: %s", len(regs), strings.Join(names, "; "))
}

func verdictText(c metrics.Comparison) string {
	return fmt.Sprintf("%s (tolerance %s)", c.Verdict, Percent(c.Tolerance))
}

func value(metric string, native float64) string {
	return verdict.FormatValue(metrics.InReportUnits(metric, native))
}

func change(ratio float64) string { return fmt.Sprintf("%+.1f%%", 100*(ratio-1)) }

func interval(ri metrics.RatioInterval) string { return verdict.NewInterval(ri.Low, ri.High).String() }

// Percent writes a fraction as a percentage: 0.1 is "10%".
func Percent(f float64) string { return fmt.Sprintf("%g%%", 100*f) }
