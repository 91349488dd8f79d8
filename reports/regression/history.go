package regression

import (
	"cmp"
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
	for i, run := range kept {
		kept[i] = run.Only(e.Name)
	}
	run, warnings, note := JoinHistory(path, kept)
	a.run, a.warnings, a.note = run, append(a.warnings, warnings...), "baseline of "+e.Name+": "+note
	return a, nil
}

// JoinHistory joins the stored runs of a history (in the order they ran,
// storedrun.LoadHistory) into one run at path whose every point holds,
// as its repeats, that point's runs across the history, oldest first
// (points matched by experiment and parameters): a baseline judged on
// all of them sees how they vary from run to run. The newest run that
// has a point describes it; a point of another run not comparable with
// it (Check) is left out, one of another size kept, each with a warning
// naming the run. The note says how many runs the points are judged on:
// "5 runs in history (5 stored runs, a to e)".
func JoinHistory(path string, runs []*storedrun.Run) (joined *storedrun.Run, warnings []string, note string) {
	joined = &storedrun.Run{Path: path}
	if len(runs) == 0 {
		return joined, nil, "no runs in " + path
	}
	joined.Start = runs[0].Start
	used := map[*storedrun.Run]bool{}
	for _, key := range pointKeys(runs) {
		p, from, warns := joinPoint(runs, key)
		joined.Points = append(joined.Points, p)
		warnings = append(warnings, warns...)
		for _, r := range from {
			used[r] = true
		}
	}
	return joined, warnings, historyNote(path, slices.DeleteFunc(slices.Clone(runs), func(r *storedrun.Run) bool { return !used[r] }), joined.Points)
}

// pointKey names a point across the runs of a history: its experiment
// and parameters.
func pointKey(p *storedrun.Point) string { return p.Experiment + "\x00" + p.Label() }

// pointKeys are the keys of the points of every run, in point order.
func pointKeys(runs []*storedrun.Run) []string {
	var points []*storedrun.Point
	for _, run := range runs {
		for _, p := range run.Points {
			if !slices.ContainsFunc(points, func(q *storedrun.Point) bool { return pointKey(q) == pointKey(p) }) {
				points = append(points, p)
			}
		}
	}
	slices.SortStableFunc(points, func(a, b *storedrun.Point) int {
		return cmp.Or(strings.Compare(a.Experiment, b.Experiment), a.Params.Compare(b.Params))
	})
	keys := make([]string, len(points))
	for i, p := range points {
		keys[i] = pointKey(p)
	}
	return keys
}

// joinPoint is the point of key as the newest run that has it describes
// it, holding the runs of every run that has it and is comparable with
// that one (from), oldest first; the warnings name the runs left out and
// the differences let through.
func joinPoint(runs []*storedrun.Run, key string) (joined *storedrun.Point, from []*storedrun.Run, warns []string) {
	var have []*storedrun.Run
	var points []*storedrun.Point
	for _, run := range runs {
		i := slices.IndexFunc(run.Points, func(p *storedrun.Point) bool { return pointKey(p) == key })
		if i < 0 {
			continue
		}
		have, points = append(have, run), append(points, run.Points[i])
	}
	newest := points[len(points)-1]
	for _, run := range runs {
		if !slices.Contains(have, run) {
			warns = append(warns, fmt.Sprintf("baseline %s has no point %s: judged on the other runs of the history", run.Path, newest.Name()))
		}
	}
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

// historyNote says how many runs the points of a history are judged on:
// "5 runs in history (5 stored runs, a to e)", or each point's count
// when they differ.
func historyNote(path string, runs []*storedrun.Run, points []*storedrun.Point) string {
	if len(points) == 0 {
		return "no point in " + path
	}
	stored := fmt.Sprintf("%d stored runs, %s to %s", len(runs), filepath.Base(runs[0].Path), filepath.Base(runs[len(runs)-1].Path))
	counts := make([]string, len(points))
	same := true
	for i, p := range points {
		counts[i] = fmt.Sprintf("%s on %s", p.Name(), plural(len(p.Repeats), "run"))
		same = same && len(p.Repeats) == len(points[0].Repeats)
	}
	if same {
		return fmt.Sprintf("%s in %s (%s)", plural(len(points[0].Repeats), "run"), path, stored)
	}
	return fmt.Sprintf("%s (%s): %s", path, stored, strings.Join(counts, ", "))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
