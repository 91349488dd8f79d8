package telemetry

// The reference: Parse as it was before the direct reader, built on
// prometheus/common's expfmt.TextParser. FuzzParseMatchesExpfmt holds the
// direct reader to it, sample for sample and error for error.

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/llmbench/llmbench/metrics"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parser keeps one expfmt.TextParser, which must not be shared between
// goroutines but may be reused: each scraping goroutine owns one, so its
// read buffer is allocated once per URL, not once per scrape.
type refParser struct {
	text  expfmt.TextParser
	names []string
	// series is the name and sorted labels of each series already seen,
	// so every scrape's sample of a series shares one copy of them. A
	// point keeps every sample it scrapes, and without this the labels
	// were most of a kept sample's size (BenchmarkRetained: 8-GPU DCGM
	// 544 B a sample before).
	series map[string]seriesIdentity
	key    []byte // scratch for series keys
}

// newParser builds the text parser with UTF-8 name validation. Since
// prometheus/common v0.66 the zero TextParser panics, and the scheme must
// be chosen: UTF-8 accepts every name the legacy scheme does (vLLM's
// "vllm:num_requests_running" included, ':' being legal in both) plus the
// quoted UTF-8 names newer exporters may send. The deprecated global
// model.NameValidationScheme is left alone: it belongs to the process,
// not to this package.
func newRefParser() *refParser {
	return &refParser{text: expfmt.NewTextParser(model.UTF8Validation), series: map[string]seriesIdentity{}}
}

// parse is Parse without the source in its errors, for callers that name
// the URL themselves. A panic inside the third-party parser is turned into
// an error: an exposition must never be able to stop a run.
func (p *refParser) parse(r io.Reader, source string, at int64) (samples []metrics.TelemetrySample, err error) {
	defer func() {
		if v := recover(); v != nil {
			samples, err = nil, fmt.Errorf("the exposition parser failed: %v", v)
		}
	}()
	families, err := p.text.TextToMetricFamilies(r)
	if err != nil {
		return nil, err
	}
	p.names = p.names[:0]
	nSamples := 0
	for name, mf := range families {
		p.names = append(p.names, name)
		nSamples += refFamilySize(mf)
	}
	slices.Sort(p.names)
	b := refBuilder{p: p, out: make([]metrics.TelemetrySample, 0, nSamples), source: source, at: at}
	for _, name := range p.names {
		b.family(name, families[name])
	}
	return b.out, nil
}

// familySize counts the samples a family turns into, so one allocation
// holds a whole scrape.
func refFamilySize(mf *dto.MetricFamily) (samples int) {
	for _, m := range mf.GetMetric() {
		switch {
		case m.GetHistogram() != nil:
			samples += len(m.GetHistogram().GetBucket()) + 3 // maybe a +Inf to add, _sum, _count
		case m.GetSummary() != nil:
			samples += len(m.GetSummary().GetQuantile()) + 2
		default:
			samples++
		}
	}
	return samples
}

// builder appends one scrape's samples.
type refBuilder struct {
	p      *refParser
	out    []metrics.TelemetrySample
	source string
	at     int64
}

func (b *refBuilder) family(name string, mf *dto.MetricFamily) {
	for _, m := range mf.GetMetric() {
		switch mf.GetType() {
		case dto.MetricType_GAUGE:
			if g := m.GetGauge(); g != nil && g.Value != nil {
				b.add(name, m.GetLabel(), "", "", g.GetValue())
			}
		case dto.MetricType_COUNTER:
			if c := m.GetCounter(); c != nil && c.Value != nil {
				b.add(name, m.GetLabel(), "", "", c.GetValue())
			}
		case dto.MetricType_UNTYPED:
			if u := m.GetUntyped(); u != nil && u.Value != nil {
				b.add(name, m.GetLabel(), "", "", u.GetValue())
			}
		case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
			if h := m.GetHistogram(); h != nil {
				b.histogram(name, m.GetLabel(), h)
			}
		case dto.MetricType_SUMMARY:
			if s := m.GetSummary(); s != nil {
				b.summary(name, m.GetLabel(), s)
			}
		}
	}
}

// histogram writes the buckets as exposed. A text exposition always ends
// with le="+Inf" (the format requires it); should one lack it, the
// _count is that bucket by definition, so it is added from the count, as
// expfmt's own writer does, and a reader always finds the +Inf bucket.
func (b *refBuilder) histogram(name string, labels []*dto.LabelPair, h *dto.Histogram) {
	bucket := name + "_bucket"
	hasInf := false
	for _, bk := range h.GetBucket() {
		if bk.UpperBound == nil {
			continue
		}
		bound := bk.GetUpperBound()
		hasInf = hasInf || math.IsInf(bound, +1)
		count := float64(bk.GetCumulativeCount())
		if bk.CumulativeCountFloat != nil {
			count = bk.GetCumulativeCountFloat()
		}
		b.add(bucket, labels, model.BucketLabel, formatBound(bound), count)
	}
	count, hasCount := refHistogramCount(h)
	if !hasInf && hasCount {
		b.add(bucket, labels, model.BucketLabel, "+Inf", count)
	}
	if h.SampleSum != nil {
		b.add(name+"_sum", labels, "", "", h.GetSampleSum())
	}
	if hasCount {
		b.add(name+"_count", labels, "", "", count)
	}
}

// histogramCount is the _count line's value, and false when the
// exposition had none (a zero would be invented data).
func refHistogramCount(h *dto.Histogram) (float64, bool) {
	switch {
	case h.SampleCountFloat != nil:
		return h.GetSampleCountFloat(), true
	case h.SampleCount != nil:
		return float64(h.GetSampleCount()), true
	}
	return 0, false
}

func (b *refBuilder) summary(name string, labels []*dto.LabelPair, s *dto.Summary) {
	for _, q := range s.GetQuantile() {
		if q.Quantile == nil || q.Value == nil {
			continue
		}
		b.add(name, labels, model.QuantileLabel, formatBound(q.GetQuantile()), q.GetValue())
	}
	if s.SampleSum != nil {
		b.add(name+"_sum", labels, "", "", s.GetSampleSum())
	}
	if s.SampleCount != nil {
		b.add(name+"_count", labels, "", "", float64(s.GetSampleCount()))
	}
}

// add appends one sample with the series labels plus, when extraName is
// set, one more (le or quantile), sorted by name.
func (b *refBuilder) add(name string, pairs []*dto.LabelPair, extraName, extraValue string, v float64) {
	id := b.identity(name, pairs, extraName, extraValue)
	b.out = append(b.out, metrics.TelemetrySample{Time: b.at, Source: b.source, Name: id.name, Labels: id.labels, Value: v})
}

// identity is the series' name and labels, the copy an earlier scrape
// made when there was one. Samples share it, so its labels slice is
// capped at its length: a consumer appending to one sample's labels gets
// a copy instead of changing every sample's.
func (b *refBuilder) identity(name string, pairs []*dto.LabelPair, extraName, extraValue string) seriesIdentity {
	k := appendField(b.p.key[:0], b.source)
	k = appendField(k, name)
	for _, lp := range pairs {
		k = appendField(appendField(k, lp.GetName()), lp.GetValue())
	}
	k = appendField(appendField(k, extraName), extraValue)
	b.p.key = k
	if id, ok := b.p.series[string(k)]; ok {
		return id
	}
	ls := make([]metrics.Label, 0, len(pairs)+1)
	for _, lp := range pairs {
		ls = append(ls, metrics.Label{Name: lp.GetName(), Value: lp.GetValue()})
	}
	if extraName != "" {
		ls = append(ls, metrics.Label{Name: extraName, Value: extraValue})
	}
	slices.SortStableFunc(ls, func(x, y metrics.Label) int { return cmp.Compare(x.Name, y.Name) })
	id := seriesIdentity{name: name, labels: ls[:len(ls):len(ls)]}
	if len(b.p.series) < maxSeries {
		b.p.series[string(k)] = id
	}
	return id
}

// refParse is Parse before the direct reader.
func refParse(r io.Reader, source string, at int64) ([]metrics.TelemetrySample, error) {
	samples, err := newRefParser().parse(r, source, at)
	if err != nil {
		return nil, fmt.Errorf("telemetry: exposition from %s: %w", source, err)
	}
	return samples, nil
}
