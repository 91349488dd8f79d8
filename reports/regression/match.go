package regression

import "github.com/llmbench/llmbench/reports/storedrun"

// Pair is a baseline point and the candidate point it is compared with.
type Pair struct {
	Baseline, Candidate *storedrun.Point
}

// Matching is how two sets' points pair up. Unmatched points are listed,
// not refused: whether a point measured on one side only matters is the
// caller's decision.
type Matching struct {
	Pairs []Pair
	// OnlyBaseline and OnlyCandidate are the points left unpaired.
	OnlyBaseline, OnlyCandidate []*storedrun.Point
}

// Match pairs the points of two sets, in three passes:
//  1. the same experiment and the same parameters (load and swept values);
//  2. points of no experiment (profile, imported exports) by parameters
//     alone, when exactly one point on each side has them;
//  3. when each set is a single point, those two, whatever their names:
//     the user named two points to compare, and Check then names how
//     their loads differ.
func Match(baseline, candidate *storedrun.Run) Matching {
	var m Matching
	left, right := baseline.Points, candidate.Points
	left, right = m.pair(left, right, func(a, b *storedrun.Point) bool {
		return a.Experiment == b.Experiment && a.Label() == b.Label()
	})
	restLeft, restRight := left, right // what pass 2 counts labels among
	left, right = m.pair(left, right, func(a, b *storedrun.Point) bool {
		return (a.Experiment == "" || b.Experiment == "") && a.Label() == b.Label() &&
			withLabel(restLeft, a.Label()) == 1 && withLabel(restRight, b.Label()) == 1
	})
	if len(baseline.Points) == 1 && len(candidate.Points) == 1 && len(left) == 1 && len(right) == 1 {
		m.Pairs = append(m.Pairs, Pair{left[0], right[0]})
		left, right = nil, nil
	}
	m.OnlyBaseline, m.OnlyCandidate = left, right
	return m
}

// pair moves every point of left that same matches to exactly one point
// of right into Pairs, returning what is left on each side.
func (m *Matching) pair(left, right []*storedrun.Point, same func(a, b *storedrun.Point) bool) ([]*storedrun.Point, []*storedrun.Point) {
	taken := make([]bool, len(right))
	var rest []*storedrun.Point
	for _, a := range left {
		j := -1
		for i, b := range right {
			if !taken[i] && same(a, b) {
				j = i
				break
			}
		}
		if j < 0 {
			rest = append(rest, a)
			continue
		}
		taken[j] = true
		m.Pairs = append(m.Pairs, Pair{a, right[j]})
	}
	var restRight []*storedrun.Point
	for i, b := range right {
		if !taken[i] {
			restRight = append(restRight, b)
		}
	}
	return rest, restRight
}

// withLabel is how many points have the label.
func withLabel(points []*storedrun.Point, label string) int {
	n := 0
	for _, p := range points {
		if p.Label() == label {
			n++
		}
	}
	return n
}
