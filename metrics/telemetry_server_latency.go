package metrics

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// ServerLatency is one of the server's own latency histograms (vLLM's
// time_to_first_token_seconds, ...) over a point: the increase of each
// bucket, _sum and _count between the last scrape at or before the
// window's start and the first at or after its end, summed over label
// sets (model_name, engine) and sources. Its mean is exact (Δsum/Δcount);
// its quantiles are known only to the bucket they fall in (P99In). The
// server's clock starts inside its front end, after the request has been
// received and parsed, so next to the client's view the difference is the
// server's front end, the network and the client (CompareServerLatency).
type ServerLatency struct {
	// Metric is what it measures: LatencyTTFT, LatencyQueueTime, ...
	Metric string
	// Families are the histograms read ("vllm:time_to_first_token_seconds").
	Families []string
	// Count is the number of observations in the window.
	Count float64
	// Mean is Δsum / Δcount, exact, and P50, P90 and P99 are
	// HistogramQuantile of the bucket increases (what a Grafana panel
	// shows), all in ns; NaN when the histogram lacks what they need (a
	// _sum series, a +Inf bucket). The quantiles are interpolations inside
	// a bucket, not measurements: reports say P50In/P90In/P99In instead
	// and never set them against a client's quantile.
	Mean, P50, P90, P99 float64
	// P50In, P90In and P99In are the buckets the quantiles fall in,
	// seconds as exposed; nil when unknown.
	P50In, P90In, P99In *HistogramRange
	// Buckets are the bucket increases, upper bounds in seconds as exposed.
	Buckets []HistogramBucket
	// OK is false when the window could not be differenced; Why says why.
	OK  bool
	Why string
}

// Quantile is the q-quantile (0 ≤ q ≤ 1) of the server's observations in
// the window, in ns, by HistogramQuantile.
func (l *ServerLatency) Quantile(q float64) float64 {
	return HistogramQuantile(q, l.Buckets) * 1e9
}

// QuantileIn is the bucket the q-quantile of the server's observations in
// the window falls in, seconds; nil when the histogram cannot say.
func (l *ServerLatency) QuantileIn(q float64) *HistogramRange {
	if r, ok := HistogramQuantileBucket(q, l.Buckets); ok {
		return &r
	}
	return nil
}

// histDelta is a histogram's increase over a window.
type histDelta struct {
	count, sum float64
	hasSum     bool
	// buckets maps upper bounds to count increases; nil before the first
	// histogram is added.
	buckets map[float64]float64
}

// add sums another increase into h. Bucket layouts may differ between
// label sets or servers; only the bounds every added histogram has are
// kept, since a cumulative count at a bound some histograms lack would be
// short by their observations.
func (h *histDelta) add(o histDelta) {
	if o.count <= 0 {
		return // nothing observed, whatever its layout
	}
	h.count += o.count
	h.sum += o.sum
	h.hasSum = (h.hasSum || h.buckets == nil) && o.hasSum
	if h.buckets == nil {
		h.buckets = map[float64]float64{}
		for le, c := range o.buckets {
			h.buckets[le] = c
		}
		return
	}
	for le := range h.buckets {
		if c, ok := o.buckets[le]; ok {
			h.buckets[le] += c
		} else {
			delete(h.buckets, le)
		}
	}
}

// serverLatencies reduces every latency histogram some source exports.
func serverLatencies(d *telemetryData, picks []serverSource, w TelemetryWindow, notes *[]string) []ServerLatency {
	var out []ServerLatency
	for _, metric := range latencyMetrics {
		l := ServerLatency{Metric: metric}
		var total histDelta
		for _, p := range picks {
			family := chosenFamily(d, p.source, p.engine.latencies[metric])
			if family == "" {
				continue
			}
			if !slices.Contains(l.Families, family) {
				l.Families = append(l.Families, family)
			}
			h, why := histogramDelta(d, p.source, family, w, notes)
			if why != "" && l.Why == "" {
				l.Why = why
			}
			total.add(h)
		}
		if len(l.Families) > 0 {
			out = append(out, l.finish(total))
		}
	}
	return out
}

// finish fills the statistics from the summed increase.
func (l ServerLatency) finish(h histDelta) ServerLatency {
	l.Mean, l.P50, l.P90, l.P99 = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	switch {
	case l.Why != "":
		return l
	case h.count <= 0:
		l.Why = "the server observed no requests during the point"
		return l
	}
	l.OK, l.Count = true, h.count
	for le, c := range h.buckets {
		l.Buckets = append(l.Buckets, HistogramBucket{UpperBound: le, Count: c})
	}
	slices.SortFunc(l.Buckets, func(a, b HistogramBucket) int { return cmp.Compare(a.UpperBound, b.UpperBound) })
	if h.hasSum {
		l.Mean = h.sum / h.count * 1e9
	}
	l.P50, l.P90, l.P99 = l.Quantile(0.5), l.Quantile(0.9), l.Quantile(0.99)
	l.P50In, l.P90In, l.P99In = l.QuantileIn(0.5), l.QuantileIn(0.9), l.QuantileIn(0.99)
	return l
}

// chosenFamily is the first histogram family the source exports.
func chosenFamily(d *telemetryData, source string, families []string) string {
	for _, f := range families {
		for _, suffix := range []string{"_count", "_bucket"} {
			if slices.ContainsFunc(d.byName[f+suffix], func(s *telemetrySeries) bool { return s.source == source }) {
				return f
			}
		}
	}
	return ""
}

// histogramSet is one label set of a histogram family.
type histogramSet struct {
	count, sum *telemetrySeries
	buckets    map[float64]*telemetrySeries
}

// histogramDelta is a source's histogram family's increase over the
// window, label sets summed; why, when not "", says why it is unknown.
func histogramDelta(d *telemetryData, source, family string, w TelemetryWindow, notes *[]string) (histDelta, string) {
	scrapes := d.scrapes[source]
	i0, _ := slices.BinarySearch(scrapes, w.Start+1)
	i1, _ := slices.BinarySearch(scrapes, w.End)
	switch {
	case i0 == 0:
		return histDelta{}, fmt.Sprintf("%s: no scrape of %s at or before the point's start", family, source)
	case i1 == len(scrapes):
		return histDelta{}, fmt.Sprintf("%s: no scrape of %s at or after the point's end", family, source)
	}
	t0, t1 := scrapes[i0-1], scrapes[i1]
	var total histDelta
	sets := histogramSets(d, source, family)
	for _, key := range sortedKeys(sets) {
		h, ok := sets[key].delta(t0, t1)
		if !ok {
			*notes = append(*notes, fmt.Sprintf("%s{%s} on %s went back during the point (server restart?) and was left out", family, key, source))
			continue
		}
		total.add(h)
	}
	return total, ""
}

// histogramSets groups a source's family series by label set (le aside).
func histogramSets(d *telemetryData, source, family string) map[string]*histogramSet {
	sets := map[string]*histogramSet{}
	get := func(s *telemetrySeries) *histogramSet {
		k := labelsKey(s.labels, "le")
		if sets[k] == nil {
			sets[k] = &histogramSet{buckets: map[float64]*telemetrySeries{}}
		}
		return sets[k]
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		for _, s := range d.byName[family+suffix] {
			if s.source != source {
				continue
			}
			switch suffix {
			case "_sum":
				get(s).sum = s
			case "_count":
				get(s).count = s
			default:
				if le, err := strconv.ParseFloat(s.label("le"), 64); err == nil && !math.IsNaN(le) {
					get(s).buckets[le] = s
				}
			}
		}
	}
	return sets
}

// delta is the set's increase from scrape t0 to scrape t1; ok is false
// when a count went back (a reset). _count falls back to the +Inf bucket.
func (h *histogramSet) delta(t0, t1 int64) (histDelta, bool) {
	inc := func(s *telemetrySeries) float64 { return valueAt(s, t1) - valueAt(s, t0) }
	out := histDelta{buckets: map[float64]float64{}}
	for le, s := range h.buckets {
		if out.buckets[le] = inc(s); out.buckets[le] < 0 {
			return histDelta{}, false
		}
	}
	switch inf := math.Inf(+1); {
	case h.count != nil:
		out.count = inc(h.count)
	case h.buckets[inf] != nil:
		out.count = out.buckets[inf]
	}
	if h.sum != nil {
		out.sum, out.hasSum = inc(h.sum), true
	}
	return out, out.count >= 0
}

// valueAt is a series' latest value at or before t; 0 before its first
// sample, a histogram series not yet created being an empty one.
func valueAt(s *telemetrySeries, t int64) float64 {
	i, found := slices.BinarySearchFunc(s.points, t, func(p point, t int64) int { return cmp.Compare(p.t, t) })
	switch {
	case found:
		return s.points[i].v
	case i == 0:
		return 0
	}
	return s.points[i-1].v
}
