// Package telemetry collects Prometheus metrics while a benchmark runs: a
// GPU's DCGM exporter (power, energy, utilisation, memory, clocks) and the
// inference server's own /metrics (vLLM, SGLang, TGI, TensorRT-LLM queue
// depths, KV-cache use, latency histograms). It only collects: every value
// becomes a metrics.TelemetrySample handed to a sink, and the reductions
// (energy per token, the server's view of TTFT) live in metrics.
//
// Scraping happens off the request path, on its own goroutines and its own
// net/http connections, so a slow or dead exporter never delays a request
// and never shares a connection with the load generator. An exporter that
// fails is data, as any server error is (SPEC §11): its failures are
// counted, the time it gave nothing is reported as a gap, and the run goes
// on.
package telemetry

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/metrics"
	"github.com/prometheus/common/expfmt"
)

// Parse reads one Prometheus text exposition (format 0.0.4, what
// dcgm-exporter, vLLM, SGLang, TGI and TensorRT-LLM serve) and returns
// every series in it as a sample stamped at and attributed to source:
//
//   - a gauge, counter or untyped series is one sample under its name;
//   - a histogram is one <name>_bucket sample per bucket with an "le"
//     label (the +Inf bucket included), then <name>_sum and <name>_count;
//   - a summary is one <name> sample per quantile with a "quantile" label,
//     then <name>_sum and <name>_count.
//
// Labels are sorted by name; samples come family by family in name order
// and, within a family, in the order the exposition lists them. The "le"
// and "quantile" values are the parsed bounds written back in Go's
// shortest form ("+Inf", "0.25", "1", "1e-05"), so le="1.0" and le="1"
// read the same: compare them as numbers. A value is kept as exposed, NaN
// and ±Inf included (DCGM's int64 "not supported" sentinel,
// 9223372036854775794, too: telling it from data is the reductions' job),
// except a summary's _count, which is read as an unsigned integer (as
// prometheus/common's parser reads it), so a negative or fractional one
// (no exporter sends either) comes out wrong. Timestamps in the
// exposition are checked and ignored: every sample carries at, the moment
// the scrape was answered, on the clock request records use.
//
// What is accepted, and how it reads, is exactly what prometheus/common's
// expfmt.TextParser makes of the page, quirks included; the page is read
// in one pass by this package's own reader, and handed to expfmt only
// when that reader declines it (an error, or the quoted UTF-8 name
// syntax; see textformat.go).
//
// The exposition is data from outside, so Parse never panics: anything
// the text parser rejects is an error saying what and on which line.
func Parse(r io.Reader, source string, at int64) ([]metrics.TelemetrySample, error) {
	samples, err := newParser().parse(r, source, at)
	if err != nil {
		return nil, fmt.Errorf("telemetry: exposition from %s: %w", source, err)
	}
	return samples, nil
}

// parser reads expositions into samples. It must not be shared between
// goroutines but may be reused, and is: each scraping goroutine owns one,
// so its records, families and buffers grow once per URL, not once per
// scrape.
type parser struct {
	// One page's records (textformat.go), emptied for each page.
	metrics    []metricRec
	obs        []observation
	pairs      []pairSpan
	arena      []byte // label names and unescaped values
	order      []*family
	summaries  map[uint64]int32 // signature → metric, as expfmt finds a summary's lines
	histograms map[uint64]int32
	order32    []int32 // scratch for signatures
	// families are the families of this page (gen) and of earlier ones,
	// so a family's name is a string made once.
	families map[string]*family
	gen      uint32

	in   bytes.Buffer       // the page, when it comes as a reader
	text *expfmt.TextParser // for the pages the direct reader declines

	// series is the name and sorted labels of each series already seen,
	// so every scrape's sample of a series shares one copy of them. A
	// point keeps every sample it scrapes, and without this the labels
	// were most of a kept sample's size (BenchmarkRetained: 8-GPU DCGM
	// 544 B a sample before).
	series map[string]seriesIdentity
	key    []byte // scratch for series keys
	bound  []byte // scratch for le and quantile values
	sorted []*family
}

// seriesIdentity is what every sample of one series has in common.
type seriesIdentity struct {
	name   string
	labels []metrics.Label
}

// maxSeries bounds the identities a parser remembers. Real exporters
// expose thousands of series at most; one whose label values never repeat
// (a timestamp in a label) would otherwise grow the map without end, so
// past the bound new series are built afresh for each sample. maxFamilies
// bounds the remembered families likewise, at the start of a page.
const (
	maxSeries   = 1 << 16
	maxFamilies = 1 << 14
)

func newParser() *parser {
	return &parser{
		series:     map[string]seriesIdentity{},
		families:   map[string]*family{},
		summaries:  map[uint64]int32{},
		histograms: map[uint64]int32{},
	}
}

// parse is Parse without the source in its errors, for callers that name
// the URL themselves.
func (p *parser) parse(r io.Reader, source string, at int64) ([]metrics.TelemetrySample, error) {
	p.in.Reset()
	if _, err := p.in.ReadFrom(r); err != nil {
		return nil, err
	}
	return p.parseBytes(p.in.Bytes(), source, at)
}

// parseBytes parses a page held in memory; the samples do not refer to
// page, which the caller may reuse. A panic (inside expfmt, say) is
// turned into an error: an exposition must never be able to stop a run.
func (p *parser) parseBytes(page []byte, source string, at int64) (samples []metrics.TelemetrySample, err error) {
	defer func() {
		if v := recover(); v != nil {
			samples, err = nil, fmt.Errorf("the exposition parser failed: %v", v)
		}
	}()
	p.reset()
	if !p.read(page) {
		p.reset()
		if err := p.readExpfmt(page); err != nil {
			return nil, err
		}
	}
	return p.emit(source, at), nil
}

// reset empties the records for a new page.
func (p *parser) reset() {
	p.metrics, p.obs, p.pairs, p.arena, p.order = p.metrics[:0], p.obs[:0], p.pairs[:0], p.arena[:0], p.order[:0]
	clear(p.summaries)
	clear(p.histograms)
	p.gen++
	if p.gen == 0 || len(p.families) > maxFamilies {
		clear(p.families)
		p.gen = 1
	}
}

// emit turns the records into samples: families in name order, each
// family's metrics in the order the page lists them.
func (p *parser) emit(source string, at int64) []metrics.TelemetrySample {
	fams, n := p.sorted[:0], 0
	for _, f := range p.order {
		if f.first < 0 {
			continue // a HELP or TYPE without samples
		}
		fams = append(fams, f)
		for m := f.first; m >= 0; m = p.metrics[m].next {
			n += p.samplesOf(f.kind, &p.metrics[m])
		}
	}
	slices.SortFunc(fams, func(a, b *family) int { return strings.Compare(a.name, b.name) })
	p.sorted = fams
	b := builder{p: p, out: make([]metrics.TelemetrySample, 0, n), source: source, at: at}
	for _, f := range fams {
		for m := f.first; m >= 0; m = p.metrics[m].next {
			b.metric(f, &p.metrics[m])
		}
	}
	clear(fams) // drop the pointers until the next page
	return b.out
}

// samplesOf counts the samples metric m turns into, so one allocation
// holds a whole scrape and no more (a point keeps every scrape's).
func (p *parser) samplesOf(k kind, m *metricRec) int {
	switch {
	case k.histogram():
		_, hasCount := m.histogramCount()
		return int(m.nObs) + btoi(hasCount && !m.infBucket) + btoi(m.hasSum) + btoi(hasCount)
	case k == kindSummary:
		return int(m.nObs) + btoi(m.hasSum) + btoi(m.hasCountInt)
	}
	return 1
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// histogramCount is the _count line's value, and false when the
// exposition had none (a zero would be invented data). As in expfmt, a
// histogram with a bucket that is not an integer has its count made a
// float, 0 if there was no _count line.
func (m *metricRec) histogramCount() (float64, bool) {
	switch {
	case m.hasCountFloat:
		return m.countFloat, true
	case m.hasCountInt || m.floatBucket:
		return float64(m.countInt), true
	}
	return 0, false
}

// builder appends one scrape's samples.
type builder struct {
	p      *parser
	out    []metrics.TelemetrySample
	source string
	at     int64
}

// metric appends one metric's samples. A histogram's buckets are written
// as exposed; a text exposition always ends with le="+Inf" (the format
// requires it), and should one lack it, the _count is that bucket by
// definition, so it is added from the count, as expfmt's own writer does,
// and a reader always finds the +Inf bucket.
func (b *builder) metric(f *family, m *metricRec) {
	switch {
	case f.kind.histogram():
		for o := m.firstObs; o >= 0; o = b.p.obs[o].next {
			b.add(f.name, "_bucket", m, "le", b.p.obs[o].bound, b.p.obs[o].value)
		}
		count, hasCount := m.histogramCount()
		if hasCount && !m.infBucket {
			b.add(f.name, "_bucket", m, "le", math.Inf(+1), count)
		}
		if m.hasSum {
			b.add(f.name, "_sum", m, "", 0, m.sum)
		}
		if hasCount {
			b.add(f.name, "_count", m, "", 0, count)
		}
	case f.kind == kindSummary:
		for o := m.firstObs; o >= 0; o = b.p.obs[o].next {
			b.add(f.name, "", m, "quantile", b.p.obs[o].bound, b.p.obs[o].value)
		}
		if m.hasSum {
			b.add(f.name, "_sum", m, "", 0, m.sum)
		}
		if m.hasCountInt {
			b.add(f.name, "_count", m, "", 0, float64(m.countInt))
		}
	default:
		b.add(f.name, "", m, "", 0, m.value)
	}
}

// add appends one sample of series name+suffix with m's labels plus,
// when extraName is set, one more (le or quantile) whose value is bound.
func (b *builder) add(name, suffix string, m *metricRec, extraName string, bound, v float64) {
	id := b.identity(name, suffix, m, extraName, bound)
	b.out = append(b.out, metrics.TelemetrySample{Time: b.at, Source: b.source, Name: id.name, Labels: id.labels, Value: v})
}

// identity is the series' name and labels, the copy an earlier scrape
// made when there was one. Samples share it, so its labels slice is
// capped at its length: a consumer appending to one sample's labels gets
// a copy instead of changing every sample's. The key lists the labels in
// the page's order, so finding a series costs no sort.
func (b *builder) identity(name, suffix string, m *metricRec, extraName string, bound float64) seriesIdentity {
	p := b.p
	extraValue := p.bound[:0]
	if extraName != "" {
		extraValue = appendBound(extraValue, bound)
	}
	p.bound = extraValue
	k := appendField(p.key[:0], b.source)
	k = binary.AppendUvarint(k, uint64(len(name)+len(suffix)))
	k = append(append(k, name...), suffix...)
	pairs := p.pairs[m.pairs.start:m.pairs.end]
	for _, lp := range pairs {
		k = appendBytesField(k, p.arena[lp.name.start:lp.name.end])
		k = appendBytesField(k, p.arena[lp.value.start:lp.value.end])
	}
	k = appendBytesField(appendField(k, extraName), extraValue)
	p.key = k
	if id, ok := p.series[string(k)]; ok {
		return id
	}
	ls := make([]metrics.Label, 0, len(pairs)+1)
	for _, lp := range pairs {
		ls = append(ls, metrics.Label{Name: string(p.arena[lp.name.start:lp.name.end]), Value: string(p.arena[lp.value.start:lp.value.end])})
	}
	if extraName != "" {
		ls = append(ls, metrics.Label{Name: extraName, Value: string(extraValue)})
	}
	slices.SortStableFunc(ls, func(x, y metrics.Label) int { return cmp.Compare(x.Name, y.Name) })
	if suffix != "" {
		name += suffix
	}
	id := seriesIdentity{name: name, labels: ls[:len(ls):len(ls)]}
	if len(p.series) < maxSeries {
		p.series[string(k)] = id
	}
	return id
}

// appendField appends s length-first, so no label value, whatever bytes
// it holds, can make two different series' keys equal.
func appendField(k []byte, s string) []byte {
	return append(binary.AppendUvarint(k, uint64(len(s))), s...)
}

func appendBytesField(k, s []byte) []byte {
	return append(binary.AppendUvarint(k, uint64(len(s))), s...)
}

// formatBound writes a bucket bound or quantile the way expfmt writes
// them back out: +Inf, -Inf, NaN, else the shortest exact decimal.
func formatBound(f float64) string {
	return string(appendBound(nil, f))
}

func appendBound(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, +1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(f):
		return append(b, "NaN"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}
