package verdict

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmbench/llmbench/metrics"
)

// Judgement is what the judge says beside a verdict, as gates.json (in a
// baseline gate's comparison) and compare.json (in every metric) carry it
// and every writer shows it: a reader weighs "no significant change" by
// what the runs could have detected, and a changed verdict by why it
// changed.
type Judgement struct {
	// MDC is the minimum detectable change, a fraction (0.082 for 8.2%);
	// null in JSON when no change could be detected.
	MDC Bound `json:"mdc"`
	// Adjustment says how the family's multiplicity correction changed
	// the verdict ("regression → inconclusive after Holm over 4 gates");
	// "" when it did not.
	Adjustment string `json:"adjustment"`
	// Informational marks a metric judged apart from the point's gated
	// family: it is shown, and fails nothing.
	Informational bool `json:"informational"`
	// Unbounded says why a bound of the interval does not exist ("only 3
	// requests above p99"); "" when both exist.
	Unbounded string `json:"unbounded"`
	// BaselineRuns and CandidateRuns count the runs each side was judged
	// on (repeats, or the runs of a baseline history).
	BaselineRuns  int `json:"baseline_runs"`
	CandidateRuns int `json:"candidate_runs"`
}

// JudgementOf is what c says beside its verdict.
func JudgementOf(c metrics.Comparison) Judgement {
	return Judgement{MDC: Bound(c.MDC), Adjustment: c.Adjustment, Informational: c.Informational,
		Unbounded: c.Unbounded, BaselineRuns: c.BaselineRuns, CandidateRuns: c.CandidateRuns}
}

// Detects is the minimum detectable change in words, "detects ≥ 8.2%",
// shown next to every verdict: "detects any change" for 0 (an exact
// comparison), "cannot detect any change" when none could be, and
// nothing for a baseline of 0, whose relative changes have no size (the
// judge's NaN, null in JSON like +Inf: Unbounded or the values tell them
// apart).
func (j Judgement) Detects() string {
	switch mdc := float64(j.MDC); {
	case math.IsNaN(mdc):
		return ""
	case math.IsInf(mdc, 1):
		return "cannot detect any change"
	case mdc <= 0:
		return "detects any change"
	default:
		return fmt.Sprintf("detects ≥ %.1f%%", 100*mdc)
	}
}

// Notes joins the notes that qualify a verdict in parentheses, leaving
// out empty ones: "(regression → inconclusive after Holm over 4 gates)";
// "" when every note is empty.
func Notes(notes ...string) string {
	if kept := nonEmpty(notes); len(kept) > 0 {
		return "(" + strings.Join(kept, "; ") + ")"
	}
	return ""
}

// Then is the notes that follow a verdict and its condition, each after
// "; ", leaving out empty ones: "regression (limit <= baseline * 1.1)"
// + "; detects ≥ 8.2%; regression → inconclusive after Holm over 4 gates".
func Then(notes ...string) string {
	var b strings.Builder
	for _, n := range nonEmpty(notes) {
		b.WriteString("; " + n)
	}
	return b.String()
}

func nonEmpty(notes []string) []string {
	var kept []string
	for _, n := range notes {
		if n != "" {
			kept = append(kept, n)
		}
	}
	return kept
}

// InformationalLabel heads the metrics judged apart from the gated ones,
// in every writer that shows them.
const InformationalLabel = "Informational (judged apart from the gated metrics; fails nothing)"

// Plural is a count with its noun, singular for one: "1 regression",
// "2 regressions", "0 regressions". Every count a report prints goes
// through it, so none reads "1 regressions".
func Plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
