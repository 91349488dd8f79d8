package telemetry

import (
	"bytes"
	"math"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// readExpfmt reads a page the direct reader declined with
// prometheus/common's TextParser, into the same records, so both ways
// give samples through one builder. It is the slow way (about five times
// the CPU, and thousands of allocations a page where the direct reader
// makes none) and real exporters' pages never take it: it is there for what the direct reader does not handle
// (a quoted UTF-8 name) and for saying what is wrong with a broken page,
// in the words users have always seen.
//
// The TextParser is built with UTF-8 name validation. Since
// prometheus/common v0.66 the zero TextParser panics, and the scheme must
// be chosen: UTF-8 accepts every name the legacy scheme does (vLLM's
// "vllm:num_requests_running" included, ':' being legal in both) plus the
// quoted UTF-8 names newer exporters may send. The deprecated global
// model.NameValidationScheme is left alone: it belongs to the process,
// not to this package.
func (p *parser) readExpfmt(page []byte) error {
	if p.text == nil {
		t := expfmt.NewTextParser(model.UTF8Validation)
		p.text = &t
	}
	families, err := p.text.TextToMetricFamilies(bytes.NewReader(page))
	if err != nil {
		return err
	}
	for name, mf := range families {
		f := p.newFamily([]byte(name))
		f.kind = kindOf(mf.GetType())
		for _, m := range mf.GetMetric() {
			p.fromDTO(f, m)
		}
	}
	return nil
}

func kindOf(t dto.MetricType) kind {
	switch t {
	case dto.MetricType_COUNTER:
		return kindCounter
	case dto.MetricType_GAUGE:
		return kindGauge
	case dto.MetricType_SUMMARY:
		return kindSummary
	case dto.MetricType_HISTOGRAM:
		return kindHistogram
	case dto.MetricType_GAUGE_HISTOGRAM:
		return kindGaugeHistogram
	}
	return kindUntyped
}

// fromDTO records one of expfmt's metrics; what it lacks (a value, a
// sum, a count) is left out, as the direct reader leaves it out.
func (p *parser) fromDTO(f *family, m *dto.Metric) {
	value, ok := plainValue(f.kind, m)
	switch {
	case ok:
	case f.kind.histogram() && m.GetHistogram() != nil, f.kind == kindSummary && m.GetSummary() != nil:
	default:
		return
	}
	pairs0 := len(p.pairs)
	for _, lp := range m.GetLabel() {
		nameAt := len(p.arena)
		p.arena = append(p.arena, lp.GetName()...)
		valueAt := len(p.arena)
		p.arena = append(p.arena, lp.GetValue()...)
		p.pairs = append(p.pairs, pairSpan{span{nameAt, valueAt}, span{valueAt, len(p.arena)}})
	}
	rec := p.newMetric(f, pairs0)
	switch {
	case ok:
		rec.value = value
	case f.kind.histogram():
		h := m.GetHistogram()
		for _, bk := range h.GetBucket() {
			if bk.UpperBound == nil {
				continue
			}
			count := float64(bk.GetCumulativeCount())
			if bk.CumulativeCountFloat != nil {
				count = bk.GetCumulativeCountFloat()
			}
			p.observe(rec, bk.GetUpperBound(), count)
			rec.infBucket = rec.infBucket || math.IsInf(bk.GetUpperBound(), +1)
		}
		rec.sum, rec.hasSum = h.GetSampleSum(), h.SampleSum != nil
		rec.countFloat, rec.hasCountFloat = h.GetSampleCountFloat(), h.SampleCountFloat != nil
		rec.countInt, rec.hasCountInt = h.GetSampleCount(), h.SampleCount != nil
	default:
		s := m.GetSummary()
		for _, q := range s.GetQuantile() {
			if q.Quantile != nil && q.Value != nil {
				p.observe(rec, q.GetQuantile(), q.GetValue())
			}
		}
		rec.sum, rec.hasSum = s.GetSampleSum(), s.SampleSum != nil
		rec.countInt, rec.hasCountInt = s.GetSampleCount(), s.SampleCount != nil
	}
}

// plainValue is a gauge's, counter's or untyped metric's value.
func plainValue(k kind, m *dto.Metric) (float64, bool) {
	switch {
	case k == kindGauge && m.GetGauge() != nil && m.GetGauge().Value != nil:
		return m.GetGauge().GetValue(), true
	case k == kindCounter && m.GetCounter() != nil && m.GetCounter().Value != nil:
		return m.GetCounter().GetValue(), true
	case k == kindUntyped && m.GetUntyped() != nil && m.GetUntyped().Value != nil:
		return m.GetUntyped().GetValue(), true
	}
	return 0, false
}
