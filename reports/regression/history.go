package regression

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/reports/storedrun"
	"github.com/llmbench/llmbench/runtime/plan"
)

// joinHistory makes the stored runs at path, in the order they ran, one
// baseline for e: a single run as it is; a history (the last runs of the
// main branch) as one run whose every point holds, as its repeats, the
// runs of that point across the history, so a gate is judged on all of
// them and sees how they vary from run to run (each stored run's repeats
// count as runs).
//
// A run of the history that cannot be e's baseline (unfit), and a point
// of a run not comparable with the same point of the newest run that has
// it (Check: another dataset, sequence lengths, token counting, load), is
// left out with a warning naming it; a size that differs (Check's
// warnings) is kept, with a warning. A history none of whose runs fits is
// refused naming each.
func joinHistory(path string, history []*storedrun.Run, e *plan.Experiment) (*attached, error) {
	if len(history) == 1 {
		if why := unfit(history[0], e); why != "" {
			return nil, fmt.Errorf("baseline %s%s", history[0].Path, why)
		}
		return &attached{run: history[0]}, nil
	}
	a := &attached{}
	var kept []*storedrun.Run
	var reasons []string              // why runs were left out, in order
	byReason := map[string][]string{} // the runs left out for each
	for _, run := range history {
		why := unfit(run, e)
		if why == "" {
			kept = append(kept, run)
			continue
		}
		if byReason[why] == nil {
			reasons = append(reasons, why)
		}
		byReason[why] = append(byReason[why], filepath.Base(run.Path))
		a.warnings = append(a.warnings, fmt.Sprintf("baseline %s%s: left out of the baseline history", run.Path, why))
	}
	if len(kept) == 0 {
		parts := make([]string, len(reasons))
		for i, why := range reasons {
			parts[i] = strings.Join(byReason[why], ", ") + why
		}
		return nil, fmt.Errorf("baseline %s: none of its %d runs can be the baseline: %s", path, len(history), strings.Join(parts, "; "))
	}
	joined := &storedrun.Run{Path: path, Start: kept[0].Start}
	used := map[*storedrun.Run]bool{}
	for _, label := range pointLabels(kept, e) {
		p, from, warns := joinPoint(kept, e, label)
		joined.Points = append(joined.Points, p)
		a.warnings = append(a.warnings, warns...)
		for _, r := range from {
			used[r] = true
		}
	}
	a.run = joined
	a.note = historyNote(path, e.Name, slices.DeleteFunc(kept, func(r *storedrun.Run) bool { return !used[r] }), joined.Points)
	return a, nil
}

// pointLabels are the labels of e's points in any run, in parameter order.
func pointLabels(runs []*storedrun.Run, e *plan.Experiment) []string {
	var points []*storedrun.Point
	for _, run := range runs {
		for _, p := range run.PointsOf(e.Name) {
			if !slices.ContainsFunc(points, func(q *storedrun.Point) bool { return q.Label() == p.Label() }) {
				points = append(points, p)
			}
		}
	}
	slices.SortStableFunc(points, func(a, b *storedrun.Point) int { return a.Params.Compare(b.Params) })
	labels := make([]string, len(points))
	for i, p := range points {
		labels[i] = p.Label()
	}
	return labels
}

// joinPoint is the point labelled label as the newest run that has it
// describes it, holding the runs of every run that has it and is
// comparable with that one (from), oldest first; the warnings name the
// runs left out and the differences let through.
func joinPoint(runs []*storedrun.Run, e *plan.Experiment, label string) (joined *storedrun.Point, from []*storedrun.Run, warns []string) {
	var have []*storedrun.Run
	var points []*storedrun.Point
	for _, run := range runs {
		i := slices.IndexFunc(run.PointsOf(e.Name), func(p *storedrun.Point) bool { return p.Label() == label })
		if i < 0 {
			warns = append(warns, fmt.Sprintf("baseline %s has no point %s: judged on the other runs of the history", run.Path, label))
			continue
		}
		have, points = append(have, run), append(points, run.PointsOf(e.Name)[i])
	}
	newest := points[len(points)-1]
	point := *newest
	point.Repeats = nil
	for i, p := range points {
		if p != newest {
			diffs, err := Check(Matching{Pairs: []Pair{{Baseline: p, Candidate: newest}}}, CheckOptions{})
			if len(diffs) > 0 {
				what := "kept"
				if err != nil {
					what = "left out of the baseline history"
				}
				warns = append(warns, fmt.Sprintf("baseline %s: %s differs from the newest run's, %s (%s): %s",
					have[i].Path, p.Name(), have[len(have)-1].Path, againstNewest(diffs), what))
			}
			if err != nil {
				continue
			}
		}
		point.Repeats = append(point.Repeats, p.Repeats...)
		from = append(from, have[i])
	}
	return &point, from, warns
}

// againstNewest words Check's differences of a history's run with its
// newest one.
func againstNewest(diffs []Difference) string {
	parts := make([]string, len(diffs))
	for i, d := range diffs {
		parts[i] = fmt.Sprintf("%s: %s, newest %s", d.What, d.Baseline, d.Candidate)
	}
	return strings.Join(parts, "; ")
}

// historyNote says how many runs the points of a baseline history are
// judged on: "baseline of chat: 5 runs in history (5 stored runs, a to
// e)", or each point's count when they differ.
func historyNote(path, experiment string, runs []*storedrun.Run, points []*storedrun.Point) string {
	stored := fmt.Sprintf("%d stored runs, %s to %s", len(runs), filepath.Base(runs[0].Path), filepath.Base(runs[len(runs)-1].Path))
	counts := make([]string, len(points))
	same := true
	for i, p := range points {
		counts[i] = fmt.Sprintf("%s on %s", p.Label(), plural(len(p.Repeats), "run"))
		same = same && len(p.Repeats) == len(points[0].Repeats)
	}
	if same {
		return fmt.Sprintf("baseline of %s: %s in %s (%s)", experiment, plural(len(points[0].Repeats), "run"), path, stored)
	}
	return fmt.Sprintf("baseline of %s: %s (%s): %s", experiment, path, stored, strings.Join(counts, ", "))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
