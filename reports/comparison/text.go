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
// change with its one-sided bounds, and the verdict with what qualifies
// it (tolerance, minimum detectable change, a family adjustment). The
// point's informational metrics follow in a table of their own, under a
// label saying they fail nothing.
func Table(r *Report) reports.Reporter {
	return func(w io.Writer) error {
		fmt.Fprintf(w, "Baseline:  %s\nCandidate: %s\n", r.Baseline, r.Candidate)
		for _, p := range r.Points {
			fmt.Fprintf(w, "\n== %s ==\n", p.name())
			gated, info := apart(p.Metrics, func(c metrics.Comparison) bool { return c.Informational })
			if err := writeRows(w, gated); err != nil {
				return err
			}
			if len(info) > 0 {
				fmt.Fprintf(w, "%s:\n", verdict.InformationalLabel)
				if err := writeRows(w, info); err != nil {
					return err
				}
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

// writeRows is one table of comparisons with its header; nothing for
// none.
func writeRows(w io.Writer, cs []metrics.Comparison) error {
	if len(cs) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tbaseline\tcandidate\tchange\tone-sided bounds\tmethod\tverdict")
	var whys []string
	for _, c := range cs {
		cell, why := boundsCell(c)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Metric, value(c.Metric, c.Baseline), value(c.Metric, c.Candidate),
			change(c.Interval.Ratio), cell, c.Interval.Method, verdictText(c))
		if why != "" {
			whys = append(whys, fmt.Sprintf("  why a bound is missing, %s: %s\n", c.Metric, why))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(w, strings.Join(whys, ""))
	return err
}

// Headline is the comparison in one line: regressions named first.
// Informational metrics fail nothing and are not counted.
func Headline(r *Report) string {
	regs := r.Regressions()
	if len(regs) == 0 {
		return fmt.Sprintf("no regression beyond the tolerance (%s, %d inconclusive, %d within tolerance, %d no significant change)",
			verdict.Plural(r.Count(metrics.VerdictImprovement), "improvement"), r.Count(metrics.VerdictInconclusive),
			r.Count(metrics.VerdictWithinTolerance), r.Count(metrics.VerdictNoChange))
	}
	names := make([]string, len(regs))
	for i, c := range regs {
		names[i] = fmt.Sprintf("%s %s %s", c.Point, c.Metric, change(c.Interval.Ratio))
	}
	return fmt.Sprintf("%s: %s", verdict.Plural(len(regs), "regression"), strings.Join(names, "; "))
}

// verdictText is the verdict with what qualifies it: "inconclusive
// (tolerance 10%); detects ≥ 8.2%; regression → inconclusive after Holm
// over 4 gates".
func verdictText(c metrics.Comparison) string {
	return fmt.Sprintf("%s (tolerance %s)%s", c.Verdict, Percent(c.Tolerance), qualifiers(c))
}

// qualifiers follow a verdict and its tolerance: "; detects ≥ 8.2%; regression
// → inconclusive after Holm over 4 gates", "" when there are none.
func qualifiers(c metrics.Comparison) string {
	j := verdict.JudgementOf(c)
	return verdict.Then(j.Detects(), j.Adjustment)
}

func value(metric string, native float64) string {
	return verdict.FormatValue(metrics.InReportUnits(metric, native))
}

func change(ratio float64) string { return fmt.Sprintf("%+.1f%%", 100*(ratio-1)) }

// bounds are c's one-sided bounds in words, a missing one said why.
func bounds(c metrics.Comparison) string {
	return verdict.NewInterval(c.Interval.Low, c.Interval.High).Explained(c.Unbounded)
}

// boundsCell is c's bounds for a table cell: a missing bound points below
// the table ("no upper bound (why below)"), where why says why, so one
// long reason does not widen every row.
func boundsCell(c metrics.Comparison) (cell, why string) {
	iv := verdict.NewInterval(c.Interval.Low, c.Interval.High)
	if c.Unbounded == "" || iv.Explained("x") == iv.String() { // both bounds exist: the reason is not shown
		return iv.String(), ""
	}
	return iv.Explained("why below"), c.Unbounded
}

// Percent writes a fraction as a percentage: 0.1 is "10%".
func Percent(f float64) string { return fmt.Sprintf("%g%%", 100*f) }
