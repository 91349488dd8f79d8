package comparison

import (
	"fmt"
	"io"
	"strings"

	"github.com/llmbench/llmbench/reports"
)

// Markdown is a summary fit for a pull-request comment: the headline,
// then a short table with regressions and inconclusive results first.
func Markdown(r *Report) reports.Reporter {
	return func(w io.Writer) error { return writeMarkdown(w, r) }
}

func writeMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	icon := "✅"
	if len(r.Regressions()) > 0 {
		icon = "❌"
	}
	fmt.Fprintf(&b, "### %s llmbench compare\n\n%s\n\nBaseline `%s`, candidate `%s`; %s confidence, tolerance %s.\n\n",
		icon, Headline(r), r.Baseline, r.Candidate, Percent(r.Confidence), Percent(r.Tolerance))
	b.WriteString("| point | metric | baseline | candidate | change | interval | verdict |\n|---|---|---|---|---|---|---|\n")
	for _, c := range byVerdict(r.all()) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", c.Point, c.Metric, value(c.Metric, c.Baseline),
			value(c.Metric, c.Candidate), change(c.Interval.Ratio), interval(c.Interval), c.Verdict)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(&b, "\n> ⚠️ %s\n", warn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
