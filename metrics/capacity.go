package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// LoadPoint is one measured point of a sweep: the value of the swept load
// parameter (concurrency, request rate...) and what the run at that load
// measured. The capacity analyses take points in increasing load order, the
// order a sweep runs them in, because "the last load before things went
// wrong" only means something along a rising load.
type LoadPoint struct {
	Load    float64
	Summary *Summary
}

// The capacity analyses agree on one convention so that reports can put
// them side by side: each names the last good point, never the first bad
// one. The knee is the highest load still meeting the gate; the saturation
// point is the last load before the rule held (throughput stopped growing
// or p99 TTFT doubled). A deployment is run at a load that works, so that
// is the load worth reporting.

// Knee returns the index of the highest-load point meeting g before the
// first point that misses it: the capacity under that SLO (the design
// article's "codo", the last point with TTFT P99 < 500 ms).
//
// The scan assumes the gate's metric worsens monotonically with load, so
// it stops at the first miss: a point that passes again after a failure is
// noise (a lucky run), not the knee, and reporting it would overstate what
// the deployment can be trusted with. ok is false when even the
// lowest-load point misses, or there are no points.
//
// A point whose summary lacks the gate's metric counts as a miss, since
// nothing shows it meets the SLO. The gate's @ conditions are ignored (the
// knee looks across loads, not at one), and a baseline gate never passes
// here: it needs the baseline's value, which the caller holds.
func Knee(points []LoadPoint, g Gate) (i int, ok bool) {
	i = -1
	for j, p := range points {
		if !meets(g, p) {
			break
		}
		i = j
	}
	return i, i >= 0
}

// meets reports whether a point passes g, a metric it did not measure
// being a failure.
func meets(g Gate, p LoadPoint) bool {
	v, err := g.Measure(p.Summary)
	return err == nil && g.Check(v, math.NaN())
}

// MaxGoodput returns the index of the point with the highest request
// goodput: the load that serves the most requests within their SLOs, which
// is the capacity that matters when raw throughput past the knee is
// useless to users. Of equal goodputs the lowest load wins, as the cheaper
// way to the same result. ok is false when no point measured goodput (no
// goodput SLOs were given).
func MaxGoodput(points []LoadPoint) (i int, ok bool) {
	i, best := -1, math.Inf(-1)
	for j, p := range points {
		if p.Summary == nil || p.Summary.RequestGoodput == nil {
			continue
		}
		if g := *p.Summary.RequestGoodput; g > best {
			i, best = j, g
		}
	}
	return i, i >= 0
}

// SaturationRule is the design article's test for a sweep that went far
// enough: the load is saturating the server once output token throughput
// grows less than Growth from one step to the next, or p99 TTFT exceeds
// TTFTFactor times its value at the lowest load. Until one of them holds,
// the highest load tried is only a lower bound on capacity. A zero field
// disables its rule.
type SaturationRule struct {
	// Growth is the smallest relative throughput gain per step that still
	// counts as growing: 0.05 for 5%.
	Growth float64
	// TTFTFactor bounds p99 TTFT relative to the lowest load's: 2.0 is
	// "doubled".
	TTFTFactor float64
}

// DefaultSaturationRule is the design article's rule and until_saturation's
// default: throughput growing under 5% per step, or p99 TTFT doubled.
func DefaultSaturationRule() SaturationRule {
	return SaturationRule{Growth: 0.05, TTFTFactor: 2}
}

// Validate reports a rule that could never be meaningful: a growth outside
// [0, 1) or a TTFT factor that the lowest load itself would exceed.
func (r SaturationRule) Validate() error {
	switch {
	case !(r.Growth >= 0 && r.Growth < 1):
		return fmt.Errorf("saturation growth %s: want a ratio from 0 (rule off) to below 1", plainNumber(r.Growth))
	case !(r.TTFTFactor == 0 || r.TTFTFactor > 1):
		return fmt.Errorf("saturation TTFT factor %s: want 0 (rule off) or a number above 1", plainNumber(r.TTFTFactor))
	}
	return nil
}

// Check scans points in load order for the first point j at which the rule
// holds, and returns the saturation point i = j−1: the last load before
// throughput stopped growing or latency doubled, which is the knee of the
// throughput curve (with a batch capacity of B, a 1, 2, 4... sweep sees
// throughput flatten between B and 2B and reports B). Because j ≥ 1, i is
// always a valid index, 0 when the second point already failed to grow.
// The rule is observed at points[i+1], which the sweep had to run to see it.
//
// reason says in words which rules held and between which loads, naming
// the load parameter as param ("concurrency", "rate"; "load" when empty),
// for the console and check(results). Like Knee, Check stops at the first
// hold: a later point that grows again is noise past saturation.
//
// ok is false when the rule never held; i is then the highest load tried,
// and reason says that capacity is only a lower bound. The lowest-load
// TTFT is that of the first point that measured TTFT; points without TTFT
// (no request completed) are judged on throughput alone, and a point
// without a summary has zero throughput.
func (r SaturationRule) Check(points []LoadPoint, param string) (i int, reason string, ok bool) {
	if len(points) == 0 {
		return -1, "never saturated: no load was measured", false
	}
	base := lowestTTFT(points)
	for j := 1; j < len(points); j++ {
		var why []string
		if s, held := r.throughputStalled(points[j-1], points[j], param); held {
			why = append(why, s)
		}
		if s, held := r.ttftDoubled(base, points[j], param); held {
			why = append(why, s)
		}
		if len(why) > 0 {
			return j - 1, strings.Join(why, "; "), true
		}
	}
	last := len(points) - 1
	return last, fmt.Sprintf("never saturated up to %s: the capacity reported is only the highest load tried",
		loadName(param, points[last].Load)), false
}

// throughputStalled applies the growth rule to one step.
func (r SaturationRule) throughputStalled(prev, cur LoadPoint, param string) (string, bool) {
	if r.Growth <= 0 {
		return "", false
	}
	before, after := outputThroughput(prev), outputThroughput(cur)
	g := relativeGrowth(before, after)
	if !(g < r.Growth) {
		return "", false
	}
	return fmt.Sprintf("output token throughput %s from %s to %s (%s → %s tokens/s)",
		growthInWords(g, r.Growth), loadName(param, prev.Load), plainNumber(cur.Load),
		formatTokens(before), formatTokens(after)), true
}

// growthInWords says how throughput changed against the growth threshold:
// "grew 3.1% (< 5%)", "did not grow (< 5%)", "fell 2.7% (growth < 5%)".
func growthInWords(g, threshold float64) string {
	limit := plainNumber(threshold * 100)
	switch {
	case g > 0:
		return "grew " + formatBeside(g*100, threshold*100, 1) + "% (< " + limit + "%)"
	case g == 0:
		return "did not grow (< " + limit + "%)"
	}
	return "fell " + formatBeside(-g*100, 0, 1) + "% (growth < " + limit + "%)"
}

// ttftDoubled applies the latency rule to one point.
func (r SaturationRule) ttftDoubled(base ttftAt, cur LoadPoint, param string) (string, bool) {
	p99, measured := p99TTFT(cur)
	if r.TTFTFactor <= 0 || !base.ok || !measured || !(p99 > r.TTFTFactor*base.p99) {
		return "", false
	}
	ratio := p99 / base.p99
	return fmt.Sprintf("p99 TTFT %s ms at %s is %s× (> %s×) the lowest load's %s ms at %s",
		formatMs(p99), loadName(param, cur.Load), formatBeside(ratio, r.TTFTFactor, 1),
		plainNumber(r.TTFTFactor), formatMs(base.p99), loadName(param, base.load)), true
}

// ttftAt is the reference p99 TTFT of the TTFT rule and where it was taken.
type ttftAt struct {
	load, p99 float64
	ok        bool
}

// lowestTTFT is the p99 TTFT of the lowest load that measured one; a zero
// TTFT cannot be a reference for a ratio.
func lowestTTFT(points []LoadPoint) ttftAt {
	for _, p := range points {
		if v, ok := p99TTFT(p); ok {
			return ttftAt{load: p.Load, p99: v, ok: v > 0}
		}
	}
	return ttftAt{}
}

func p99TTFT(p LoadPoint) (float64, bool) {
	if p.Summary == nil || p.Summary.TimeToFirstToken == nil {
		return 0, false
	}
	return p.Summary.TimeToFirstToken.P99, true
}

func outputThroughput(p LoadPoint) float64 {
	if p.Summary == nil {
		return 0
	}
	return p.Summary.OutputTokenThroughput
}

// relativeGrowth is (after − before) / before, defined for a zero start
// too: from nothing to something is unbounded growth, from nothing to
// nothing is none.
func relativeGrowth(before, after float64) float64 {
	if before <= 0 {
		if after > before {
			return math.Inf(1)
		}
		return 0
	}
	return (after - before) / before
}

// loadName is a load in words: "concurrency 16", "rate 2.5".
func loadName(param string, load float64) string {
	if param == "" {
		param = "load"
	}
	return param + " " + plainNumber(load)
}

// formatBeside prints v with the fewest decimals (at least minDecimals) at which
// the printed number stays on v's side of limit, so a reason never reads
// "grew 5.0% (< 5%)" or "2.0× (> 2×)".
func formatBeside(v, limit float64, minDecimals int) string {
	for d := minDecimals; d <= 6; d++ {
		s := strconv.FormatFloat(v, 'f', d, 64)
		if r, _ := strconv.ParseFloat(s, 64); r != limit && (r < limit) == (v < limit) {
			return s
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// formatMs prints a time in ns as ms with about three significant digits,
// enough to read a latency and no more.
func formatMs(ns float64) string {
	ms := ns / 1e6
	switch a := math.Abs(ms); {
	case a >= 100:
		return strconv.FormatFloat(ms, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(ms, 'f', 1, 64)
	}
	return strconv.FormatFloat(ms, 'f', 2, 64)
}

// formatTokens prints a throughput in tokens/s to one decimal below 100,
// whole above: the precision a sweep table shows.
func formatTokens(v float64) string {
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
