package comparison

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/reports"
	"github.com/llmbench/llmbench/reports/verdict"
)

// Markdown is a summary fit for a pull-request comment: the headline,
// then a short table with regressions and inconclusive results first,
// each metric with its own tolerance, and the informational metrics in a
// table of their own, then the change points over the history the
// comparison ends, when it ends one. The runs are named relative to the working
// directory (or by their base name), so no comment shows a runner's
// absolute paths.
func Markdown(r *Report) reports.Reporter {
	return func(w io.Writer) error {
		wd, _ := os.Getwd()
		return writeMarkdown(w, r, wd)
	}
}

func writeMarkdown(w io.Writer, r *Report, wd string) error {
	var b strings.Builder
	icon := "✅"
	if len(r.Regressions()) > 0 {
		icon = "❌"
	}
	fmt.Fprintf(&b, "### %s llmbench compare\n\n%s\n\nBaseline `%s`, candidate `%s`; each bound one-sided at %s confidence.\n",
		icon, Headline(r), shownPath(r.Baseline, wd), shownPath(r.Candidate, wd), Percent(r.Confidence))
	gated, info := apart(byVerdict(r.all()), func(c Named) bool { return c.Informational })
	markdownTable(&b, gated)
	if len(info) > 0 {
		fmt.Fprintf(&b, "\n**%s**\n", verdict.InformationalLabel)
		markdownTable(&b, info)
	}
	markdownChangePoints(&b, r.History, wd)
	for _, warn := range r.Warnings {
		fmt.Fprintf(&b, "\n> ⚠️ %s\n", warn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownTable is one table of comparisons; nothing for none.
func markdownTable(b *strings.Builder, cs []Named) {
	if len(cs) == 0 {
		return
	}
	b.WriteString("\n| point | metric | baseline | candidate | change | one-sided bounds | tolerance | detects | verdict |\n" +
		"|---|---|---|---|---|---|---|---|---|\n")
	var whys []string
	for _, c := range cs {
		j := verdict.JudgementOf(c.Comparison)
		cell, why := boundsCell(c.Comparison)
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.Point, c.Metric, value(c.Metric, c.Baseline),
			value(c.Metric, c.Candidate), change(c.Interval.Ratio), cell, Percent(c.Tolerance),
			strings.TrimPrefix(j.Detects(), "detects "), strings.TrimSpace(string(c.Verdict)+" "+verdict.Notes(j.Adjustment)))
		if why != "" {
			whys = append(whys, fmt.Sprintf("- %s `%s`: %s\n", c.Point, c.Metric, why))
		}
	}
	if len(whys) > 0 {
		b.WriteString("\nWhy a bound is missing:\n\n" + strings.Join(whys, ""))
	}
}

// markdownChangePoints is the table of a history's change points, or a
// line saying there were none; nothing for a comparison alone.
func markdownChangePoints(b *strings.Builder, cp *ChangePoints, wd string) {
	if cp == nil {
		return
	}
	if len(cp.Found) == 0 {
		fmt.Fprintf(b, "\n**No change point over the history** (%s).\n", cp.Method())
		return
	}
	fmt.Fprintf(b, "\n**%s over the history** (%s)\n\n| point | metric | from run | before | after | change | p-value |\n"+
		"|---|---|---|---|---|---|---|\n", verdict.Plural(len(cp.Found), "change point"), cp.Method())
	for _, s := range cp.Found {
		fmt.Fprintf(b, "| %s | %s | `%s` | %s | %s | %s | %s |\n", s.pointName(), s.Metric, shownPath(s.RunPath, wd),
			value(s.Metric, s.Before), value(s.Metric, s.After), change(s.After/s.Before), pValue(s.PValue))
	}
}

// shownPath is a run's path as a comment may show it: relative to the
// working directory wd when the run lies under it, else its base name
// (never /home/… or /tmp/…).
func shownPath(path, wd string) string {
	abs := filepath.Clean(path)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(wd, abs)
	}
	if filepath.IsAbs(wd) {
		if rel, err := filepath.Rel(wd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(abs) // "/" only for the root itself
}
