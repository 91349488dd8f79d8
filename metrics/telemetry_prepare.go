package metrics

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// point is one timed value of a series.
type point struct {
	t int64
	v float64
}

// telemetrySeries is every sample of one exposed series (source, name
// and label set), in time order, one per instant.
type telemetrySeries struct {
	source, name string
	labels       []Label
	points       []point
}

// label returns the value of the named label, "" when absent.
func (s *telemetrySeries) label(name string) string {
	for _, l := range s.labels {
		if l.Name == name {
			return l.Value
		}
	}
	return ""
}

// telemetryData is the input of the reductions, cleaned: series by name,
// and every instant each source was scraped at.
type telemetryData struct {
	byName map[string][]*telemetrySeries
	// scrapes are, per source, the distinct times it answered, ascending.
	// A scrape whose every value was NaN still counts: it shows the source
	// was read then.
	scrapes map[string][]int64
	notes   []string
	// sources says which sources were read and which were simulated.
	sources sourceChoice
}

// dcgmBlank is the smallest of DCGM's "blank" sentinels: DCGM marks a
// field it cannot read with values just below the int64 maximum
// (DCGM_INT64_BLANK 0x7ffffffffffffff0 and its neighbours, such as the
// 9223372036854775794 dcgm-exporter prints), never a real reading.
const dcgmBlank = float64(0x7ffffffffffffff0)

func isDCGMBlank(v float64) bool { return v >= dcgmBlank }

// prepareTelemetry sorts the samples by time, groups them into series and
// drops what no statistic can use, saying so in notes: values that are NaN
// or ±Inf or a DCGM blank (an exporter's ways of saying "no reading") and a second sample
// of the same series at the same instant (a duplicated exposition line),
// of which the first is kept. A simulated source beside real ones is left
// out whole (chooseSources).
func prepareTelemetry(samples []TelemetrySample) *telemetryData {
	order := make([]int, len(samples))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(samples[a].Time, samples[b].Time) })
	d := &telemetryData{byName: map[string][]*telemetrySeries{}, scrapes: map[string][]int64{}, sources: chooseSources(samples)}
	byKey := map[string]*telemetrySeries{}
	byPlace := map[labelsAt]*telemetrySeries{}
	nonFinite := map[string]int{}
	duplicates := 0
	for _, i := range order {
		s := &samples[i]
		if !d.sources.reads(s.Source) {
			continue
		}
		d.scrapes[s.Source] = append(d.scrapes[s.Source], s.Time)
		if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) || isDCGMBlank(s.Value) {
			nonFinite[s.Name]++
			continue
		}
		at := whereLabels(s)
		se := byPlace[at]
		if se == nil {
			se = d.series(byKey, s)
			if len(byPlace) < maxPlaces { // else labels are not shared: stop remembering
				byPlace[at] = se
			}
		}
		if n := len(se.points); n > 0 && se.points[n-1].t == s.Time {
			duplicates++
			continue
		}
		se.points = append(se.points, point{s.Time, s.Value})
	}
	for src, times := range d.scrapes {
		d.scrapes[src] = slices.Compact(times)
	}
	for _, list := range d.byName {
		slices.SortFunc(list, compareSeries)
	}
	d.notes = prepareNotes(nonFinite, duplicates)
	return d
}

// series is the sample's series, made on its first sample.
func (d *telemetryData) series(byKey map[string]*telemetrySeries, s *TelemetrySample) *telemetrySeries {
	labels := sortedLabels(s.Labels)
	key := seriesKey(s.Source, s.Name, labels)
	se := byKey[key]
	if se == nil {
		se = &telemetrySeries{source: s.Source, name: s.Name, labels: labels}
		byKey[key] = se
		d.byName[s.Name] = append(d.byName[s.Name], se)
	}
	return se
}

// labelsAt names a sample's series by where its labels are held. The
// scraper and telemetry.parquet's reader give every sample of a series
// the same labels slice, so a series is looked up by its key once per
// series rather than once per sample, which had been most of a long
// point's reduction time. Samples with equal labels held apart still meet
// in one series, found by key.
type labelsAt struct {
	source, name string
	first        *Label
	n            int
}

// maxPlaces bounds byPlace for samples whose labels are not shared, which
// would otherwise add an entry per sample.
const maxPlaces = 1 << 16

func whereLabels(s *TelemetrySample) labelsAt {
	at := labelsAt{source: s.Source, name: s.Name, n: len(s.Labels)}
	if at.n > 0 {
		at.first = &s.Labels[0]
	}
	return at
}

// prepareNotes words what prepareTelemetry dropped.
func prepareNotes(nonFinite map[string]int, duplicates int) []string {
	var notes []string
	names := make([]string, 0, len(nonFinite))
	total := 0
	for name, n := range nonFinite {
		names = append(names, name)
		total += n
	}
	if total > 0 {
		slices.Sort(names)
		notes = append(notes, fmt.Sprintf("%d NaN, infinite or DCGM-blank values ignored (%s)", total, strings.Join(names, ", ")))
	}
	if duplicates > 0 {
		notes = append(notes, fmt.Sprintf("%d duplicate samples (same series, same scrape) ignored; the first of each was kept", duplicates))
	}
	return notes
}

// sortedLabels returns the labels in name order, copying only when the
// scraper did not already sort them.
func sortedLabels(labels []Label) []Label {
	less := func(a, b Label) int { return cmp.Compare(a.Name, b.Name) }
	if slices.IsSortedFunc(labels, less) {
		return labels
	}
	out := slices.Clone(labels)
	slices.SortFunc(out, less)
	return out
}

// seriesKey identifies a series; the separators cannot occur in a
// Prometheus name or label name, and label values are quoted.
func seriesKey(source, name string, labels []Label) string {
	var b strings.Builder
	b.WriteString(source + "\x00" + name)
	for _, l := range labels {
		fmt.Fprintf(&b, "\x00%s=%q", l.Name, l.Value)
	}
	return b.String()
}

// labelsKey identifies a label set, leaving out the named labels (le for a
// histogram's buckets).
func labelsKey(labels []Label, except ...string) string {
	var b strings.Builder
	for _, l := range labels {
		if !slices.Contains(except, l.Name) {
			fmt.Fprintf(&b, "%s=%q,", l.Name, l.Value)
		}
	}
	return b.String()
}

func compareSeries(a, b *telemetrySeries) int {
	if c := cmp.Compare(a.source, b.source); c != 0 {
		return c
	}
	return cmp.Compare(labelsKey(a.labels), labelsKey(b.labels))
}

// inWindow returns the points inside w, both edges included: a scrape
// answered at the very instant of the first send or the last response
// belongs to the point. A window shorter than the scrape interval may hold
// none; then the readings around it — the last before it and the first
// after — stand for it, as the values in force while it ran, rather than
// the point having no power or queue at all.
func inWindow(points []point, w TelemetryWindow) []point {
	lo, _ := slices.BinarySearchFunc(points, w.Start, func(p point, t int64) int { return cmp.Compare(p.t, t) })
	hi := lo
	for hi < len(points) && points[hi].t <= w.End {
		hi++
	}
	if hi > lo {
		return points[lo:hi]
	}
	return points[max(lo-1, 0):min(hi+1, len(points))]
}

// values returns the points' values in time order.
func values(points []point) []float64 {
	out := make([]float64, len(points))
	for i, p := range points {
		out[i] = p.v
	}
	return out
}

// mergePoints merges several time-ordered point lists into one, keeping
// the first value at each instant.
func mergePoints(lists ...[]point) []point {
	var all []point
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.SortStableFunc(all, func(a, b point) int { return cmp.Compare(a.t, b.t) })
	return slices.CompactFunc(all, func(a, b point) bool { return a.t == b.t })
}
