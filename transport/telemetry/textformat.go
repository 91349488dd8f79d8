package telemetry

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"
)

// This file is the direct reader of the text exposition format 0.0.4:
// one pass over the page's bytes, straight into the parser's reused
// records, with no intermediate protobuf families, maps of labels or
// per-token strings. A page it reads, it reads exactly as
// prometheus/common's expfmt.TextParser does, quirks included (they are
// noted where they matter), and it reads only pages expfmt accepts, so a
// page reads the same whichever reads it; FuzzParseMatchesExpfmt holds it
// to that.
//
// It declines what it is not sure of rather than guess: an error of any
// kind, a line that starts with '{' or a name in quotes (the UTF-8 name
// syntax, where expfmt carries state from line to line), a TYPE that is
// not ASCII, a line with more than maxLineLabels labels. A declined page
// is read again by expfmt (see readExpfmt), which says what is wrong, in
// its words, or reads it. Every exporter this package targets takes the
// direct way.

// kind is a family's type, from its TYPE line or, failing one, its first
// sample (untyped).
type kind uint8

const (
	kindNone kind = iota // neither a TYPE line nor a sample yet
	kindCounter
	kindGauge
	kindUntyped
	kindSummary
	kindHistogram
	kindGaugeHistogram
)

func (k kind) histogram() bool { return k == kindHistogram || k == kindGaugeHistogram }

// role says what a sample line is to a summary or histogram family it
// was attributed to by its name's suffix.
type role uint8

const (
	roleValue role = iota // a plain sample, a bucket or a quantile
	roleSum
	roleCount
)

// maxLineLabels bounds the labels of one line the direct reader takes
// (duplicates are looked for pairwise; vLLM 0.32's cache_config_info has
// 37); a longer line goes to expfmt.
const maxLineLabels = 256

// family is one metric family of the page being read. Families persist
// across scrapes (their names are interned once); gen says whether one
// belongs to the page being read.
type family struct {
	name        string
	gen         uint32
	kind        kind
	help        bool  // a HELP line with text was read
	first, last int32 // its metrics, linked through metricRec.next; -1: none
}

// span is a range of one of the parser's slices (arena, pairs).
type span struct{ start, end int }

type pairSpan struct{ name, value span }

// metricRec is one metric of a family: a plain sample, or one
// histogram's or summary's series, which gathers several lines.
type metricRec struct {
	pairs         span // into parser.pairs: the labels of its first line, "le"/"quantile" left out
	next          int32
	value         float64 // a plain sample's value
	firstObs      int32   // buckets or quantiles, linked through observation.next; -1: none
	lastObs       int32
	nObs          int32
	sum           float64
	countInt      uint64  // a _count line read as an unsigned integer, as expfmt stores it
	countFloat    float64 // a histogram's _count that is not an unsigned integer
	hasSum        bool
	hasCountInt   bool
	hasCountFloat bool
	floatBucket   bool // a bucket that is not an unsigned integer
	infBucket     bool // a bucket with le="+Inf"
}

// observation is one bucket (bound = le) or one quantile.
type observation struct {
	bound, value float64
	next         int32
}

// textReader walks one page; i is the next byte to read.
type textReader struct {
	p *parser
	b []byte
	i int
}

// read reads page b into p's records and reports whether it could.
func (p *parser) read(b []byte) bool {
	r := textReader{p: p, b: b}
	for {
		r.skipBlanks()
		if r.i == len(b) {
			return true // blanks may end a page without a newline
		}
		var ok bool
		switch b[r.i] {
		case '\n':
			r.i++
			ok = true
		case '#':
			r.i++
			ok = r.comment()
		case '{':
			return false // a name in braces: expfmt's
		default:
			ok = r.sample()
		}
		if !ok {
			return false
		}
	}
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func (r *textReader) skipBlanks() {
	i := r.i
	for i < len(r.b) && isBlank(r.b[i]) {
		i++
	}
	r.i = i
}

func (r *textReader) eof() bool { return r.i >= len(r.b) }

// endOfLine consumes a newline if one is next.
func (r *textReader) endOfLine() bool {
	if !r.eof() && r.b[r.i] == '\n' {
		r.i++
		return true
	}
	return false
}

// token reads up to the next blank or newline; false at the end of the
// page (every line must end with a newline).
func (r *textReader) token() ([]byte, bool) {
	b, start := r.b, r.i
	i := start
	for i < len(b) && !isBlank(b[i]) && b[i] != '\n' {
		i++
	}
	r.i = i
	return b[start:i], i < len(b)
}

// skipLine consumes the rest of the line, newline included.
func (r *textReader) skipLine() bool {
	n := bytes.IndexByte(r.b[r.i:], '\n')
	if n < 0 {
		return false
	}
	r.i += n + 1
	return true
}

// Byte classes of names, as bits of nameClass.
const (
	metricStart  = 1 << iota // [a-zA-Z_:]
	metricByte               // [a-zA-Z0-9_:]
	labelStart               // [a-zA-Z_]
	labelByte                // [a-zA-Z0-9_]
	valueSpecial             // 'p', 'P', '_': bytes expfmt refuses in a float
)

var nameClass = func() (t [256]uint8) {
	for c := range 256 {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		digit := c >= '0' && c <= '9'
		if letter || c == ':' {
			t[c] |= metricStart | metricByte
		}
		if digit {
			t[c] |= metricByte | labelByte
		}
		if letter {
			t[c] |= labelStart | labelByte
		}
		if c == 'p' || c == 'P' || c == '_' {
			t[c] |= valueSpecial
		}
	}
	return t
}()

// name reads a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*, with start and
// more metricStart and metricByte) or a label name (labelStart,
// labelByte), empty when the next byte cannot start one. A quote in or at
// a name (expfmt toggles quoting there) and the end of the page decline.
func (r *textReader) name(start, more uint8) ([]byte, bool) {
	b, from := r.b, r.i
	if from >= len(b) || b[from] == '"' {
		return nil, false
	}
	if nameClass[b[from]]&start == 0 {
		return b[from:from], true
	}
	i := from + 1
	for i < len(b) && nameClass[b[i]]&more != 0 {
		i++
	}
	r.i = i
	if i >= len(b) || b[i] == '"' {
		return nil, false
	}
	return b[from:i], true
}

// comment reads the rest of a line that began with '#': HELP and TYPE
// lines; any other comment is skipped.
func (r *textReader) comment() bool {
	r.skipBlanks()
	if r.eof() {
		return false
	}
	if r.endOfLine() {
		return true
	}
	keyword, ok := r.token()
	if !ok {
		return false
	}
	if r.endOfLine() {
		return true // "# HELP" alone is a comment
	}
	help, typ := string(keyword) == "HELP", string(keyword) == "TYPE"
	if !help && !typ {
		return r.skipLine()
	}
	r.skipBlanks()
	name, ok := r.name(metricStart, metricByte)
	if !ok {
		return false
	}
	if r.endOfLine() {
		return true // no name, or a name and no text: nothing to record
	}
	if len(name) == 0 || !isBlank(r.b[r.i]) {
		return false
	}
	// The family exists from here on, even if the text is blank: a
	// later line's name is looked up among the families (a quirk that
	// decides whether "x_sum" is x's sum or a family of its own).
	f, _ := r.p.resolve(name)
	r.skipBlanks()
	if r.eof() {
		return false
	}
	if r.endOfLine() {
		return true
	}
	if help {
		if f.help {
			return false // a second HELP
		}
		f.help = true
		return r.helpText()
	}
	if f.kind != kindNone {
		return false // a second TYPE, or a TYPE after samples
	}
	n := bytes.IndexByte(r.b[r.i:], '\n')
	if n < 0 {
		return false
	}
	k, ok := parseKind(r.b[r.i : r.i+n])
	f.kind = k
	r.i += n + 1
	return ok
}

// helpText checks a HELP text's escapes (\\, \n and \" only) up to the
// end of its line; the text itself is not kept.
func (r *textReader) helpText() bool {
	for ; r.i < len(r.b); r.i++ {
		switch r.b[r.i] {
		case '\n':
			r.i++
			return true
		case '\\':
			r.i++
			if r.eof() {
				return false
			}
			if c := r.b[r.i]; c != '\\' && c != 'n' && c != '"' {
				return false
			}
		}
	}
	return false
}

// parseKind reads a TYPE, in any case, trailing blanks not allowed (as
// expfmt). A TYPE with non-ASCII bytes is expfmt's to judge: it
// upper-cases by Unicode rules.
func parseKind(t []byte) (kind, bool) {
	var up [len("GAUGE_HISTOGRAM")]byte
	if len(t) > len(up) {
		return kindNone, false
	}
	for i, c := range t {
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up[i] = c
	}
	switch string(up[:len(t)]) {
	case "COUNTER":
		return kindCounter, true
	case "GAUGE":
		return kindGauge, true
	case "UNTYPED":
		return kindUntyped, true
	case "SUMMARY":
		return kindSummary, true
	case "HISTOGRAM":
		return kindHistogram, true
	case "GAUGE_HISTOGRAM", "GAUGEHISTOGRAM":
		return kindGaugeHistogram, true
	}
	return kindNone, false
}

// resolve finds the family a name belongs to, as expfmt does: a family
// of that very name; else, for a name ending in _count or _sum, the
// summary it belongs to; else, for one ending in _count, _sum or
// _bucket, the histogram; else a new family of that name.
func (p *parser) resolve(name []byte) (*family, role) {
	if f := p.live(name); f != nil {
		return f, roleValue
	}
	base, ro := name, roleValue
	switch n := len(name); {
	case n > 6 && string(name[n-6:]) == "_count":
		base, ro = name[:n-6], roleCount
	case n > 4 && string(name[n-4:]) == "_sum":
		base, ro = name[:n-4], roleSum
	case n > 7 && string(name[n-7:]) == "_bucket":
		if f := p.live(name[:n-7]); f != nil && f.kind.histogram() {
			return f, roleValue
		}
	}
	if ro != roleValue {
		if f := p.live(base); f != nil && (f.kind == kindSummary || f.kind.histogram()) {
			return f, ro
		}
	}
	return p.newFamily(name), roleValue
}

// live is the family of that name in the page being read, nil if none.
func (p *parser) live(name []byte) *family {
	if f := p.families[string(name)]; f != nil && f.gen == p.gen {
		return f
	}
	return nil
}

// newFamily starts a family in the page being read, reusing the one of
// that name an earlier page had.
func (p *parser) newFamily(name []byte) *family {
	f := p.families[string(name)]
	if f == nil {
		f = &family{name: string(name)}
		p.families[f.name] = f
	}
	*f = family{name: f.name, gen: p.gen, first: -1, last: -1}
	p.order = append(p.order, f)
	return f
}

// sample reads a sample line: name, optional {labels}, value, optional
// timestamp (checked, then ignored).
func (r *textReader) sample() bool {
	p := r.p
	name, ok := r.name(metricStart, metricByte)
	if !ok || len(name) == 0 {
		return false
	}
	f, ro := p.resolve(name)
	if f.kind == kindNone {
		f.kind = kindUntyped
	}
	pairs0, arena0 := len(p.pairs), len(p.arena)
	bound := math.NaN() // the le or quantile label's value, if any
	r.skipBlanks()
	if !r.eof() && r.b[r.i] == '{' {
		r.i++
		if !r.labels(f, &bound) {
			return false
		}
		r.skipBlanks()
	}
	tok, ok := r.token()
	if !ok {
		return false
	}
	v, ok := parseValue(tok)
	if !ok {
		return false
	}
	if isBlank(r.b[r.i]) {
		r.skipBlanks()
		ts, ok := r.token()
		if !ok || !isTimestamp(ts) {
			return false
		}
	}
	if !r.endOfLine() {
		return false // e.g. blanks after the timestamp or after the value
	}
	return p.record(f, ro, pairs0, arena0, bound, v)
}

// labels reads a label set after its '{', through its '}'. In a summary
// the quantile label, in a histogram the le label, is not one of the
// series' labels: its value, a float, goes to bound (the last one wins).
func (r *textReader) labels(f *family, bound *float64) bool {
	p := r.p
	first := len(p.pairs)
	for {
		r.skipBlanks()
		if r.eof() {
			return false
		}
		if r.b[r.i] == '}' {
			r.i++
			return true
		}
		name, ok := r.name(labelStart, labelByte)
		if !ok || len(name) == 0 {
			return false
		}
		r.skipBlanks()
		if r.eof() || r.b[r.i] != '=' {
			return false
		}
		r.i++
		if string(name) == "__name__" {
			return false
		}
		special := f.kind == kindSummary && string(name) == "quantile" || f.kind.histogram() && string(name) == "le"
		if !special && (len(p.pairs)-first >= maxLineLabels || p.hasLabel(first, name)) {
			return false
		}
		r.skipBlanks()
		if r.eof() || r.b[r.i] != '"' {
			return false
		}
		r.i++
		nameAt := len(p.arena)
		p.arena = append(p.arena, name...)
		valueAt := len(p.arena)
		if !r.labelValue() {
			return false
		}
		value := p.arena[valueAt:]
		if !utf8.Valid(value) {
			return false
		}
		if special {
			b, ok := parseValue(value)
			if !ok {
				return false
			}
			*bound = b
			p.arena = p.arena[:nameAt]
		} else {
			p.pairs = append(p.pairs, pairSpan{span{nameAt, valueAt}, span{valueAt, len(p.arena)}})
		}
		r.skipBlanks()
		if r.eof() {
			return false
		}
		switch r.b[r.i] {
		case ',':
			r.i++
		case '}':
			r.i++
			return true
		default:
			return false
		}
	}
}

// hasLabel reports whether the line's labels from pairs[first:] include
// name.
func (p *parser) hasLabel(first int, name []byte) bool {
	for _, lp := range p.pairs[first:] {
		if bytes.Equal(p.arena[lp.name.start:lp.name.end], name) {
			return true
		}
	}
	return false
}

// labelValue unescapes a quoted label value onto the arena, through its
// closing quote: \\, \" and \n are the escapes, a raw newline is an error.
func (r *textReader) labelValue() bool {
	p := r.p
	for r.i < len(r.b) {
		c := r.b[r.i]
		r.i++
		switch c {
		case '"':
			return true
		case '\n':
			return false
		case '\\':
			if r.eof() {
				return false
			}
			switch r.b[r.i] {
			case '\\', '"':
				c = r.b[r.i]
			case 'n':
				c = '\n'
			default:
				return false
			}
			r.i++
		default:
			// Copy the run up to the next quote, backslash or newline at once.
			b, end := r.b, r.i
			for end < len(b) && b[end] != '"' && b[end] != '\\' && b[end] != '\n' {
				end++
			}
			p.arena = append(p.arena, b[r.i-1:end]...)
			r.i = end
			continue
		}
		p.arena = append(p.arena, c)
	}
	return false
}

// parseValue reads a float as expfmt does: strconv's syntax (NaN, Inf,
// exponents, hexadecimal mantissas), but no 'p' exponents or '_'
// separators, and no out-of-range values.
func parseValue(t []byte) (float64, bool) {
	for _, c := range t {
		if nameClass[c]&valueSpecial != 0 {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(string(t), 64)
	return v, err == nil
}

// isTimestamp reports whether t is an int64 in decimal, sign allowed.
func isTimestamp(t []byte) bool {
	_, err := strconv.ParseInt(string(t), 10, 64)
	return err == nil
}

// record files a sample line's value in its family. A summary's or
// histogram's lines with the same labels (le and quantile aside) make
// one metric, found by the labels' signature as expfmt finds it; the
// line's own copy of the labels is then dropped.
func (p *parser) record(f *family, ro role, pairs0, arena0 int, bound, v float64) bool {
	if f.kind != kindSummary && !f.kind.histogram() {
		p.newMetric(f, pairs0).value = v
		return true
	}
	sigs := p.summaries
	if f.kind.histogram() {
		sigs = p.histograms
	}
	sig := p.signature(f.name, pairs0)
	idx, seen := sigs[sig]
	if seen {
		p.pairs, p.arena = p.pairs[:pairs0], p.arena[:arena0]
	} else {
		idx = int32(len(p.metrics))
		p.newMetric(f, pairs0)
		sigs[sig] = idx
	}
	m := &p.metrics[idx]
	switch {
	case ro == roleSum:
		m.sum, m.hasSum = v, true
	case ro == roleCount && f.kind == kindSummary:
		m.countInt, m.hasCountInt = uint64(v), true
	case ro == roleCount:
		if u := uint64(v); v == float64(u) {
			m.countInt, m.hasCountInt = u, true
		} else {
			if v < 0 {
				return false
			}
			m.countFloat, m.hasCountFloat = v, true
		}
	case math.IsNaN(bound):
		// A line of the family with no (or a NaN) le or quantile:
		// expfmt keeps the metric and drops the value.
	case f.kind == kindSummary:
		p.observe(m, bound, v)
	default:
		// A bucket is stored as an unsigned integer when it is one
		// (so -0 reads as 0), else as a float, never negative.
		if u := uint64(v); v == float64(u) {
			v = float64(u)
		} else {
			if v < 0 {
				return false
			}
			m.floatBucket = true
		}
		p.observe(m, bound, v)
		m.infBucket = m.infBucket || math.IsInf(bound, +1)
	}
	return true
}

// newMetric appends a metric to family f, its labels pairs[pairs0:].
func (p *parser) newMetric(f *family, pairs0 int) *metricRec {
	idx := int32(len(p.metrics))
	p.metrics = append(p.metrics, metricRec{pairs: span{pairs0, len(p.pairs)}, next: -1, firstObs: -1, lastObs: -1})
	if f.last >= 0 {
		p.metrics[f.last].next = idx
	} else {
		f.first = idx
	}
	f.last = idx
	return &p.metrics[idx]
}

func (p *parser) observe(m *metricRec, bound, v float64) {
	idx := int32(len(p.obs))
	p.obs = append(p.obs, observation{bound: bound, value: v, next: -1})
	if m.lastObs >= 0 {
		p.obs[m.lastObs].next = idx
	} else {
		m.firstObs = idx
	}
	m.lastObs = idx
	m.nObs++
}

// signature is model.LabelsToSignature of the line's labels plus
// __name__ = the family's name: FNV-1a over the labels in name order,
// each name and value followed by 0xff. Equal label sets give equal
// signatures (a label with an empty value counts, as in expfmt).
func (p *parser) signature(familyName string, pairs0 int) uint64 {
	pairs := p.pairs[pairs0:]
	order := p.order32[:0]
	order = append(order, -1) // __name__
	for i := range pairs {
		order = append(order, int32(i))
	}
	for i := 1; i < len(order); i++ { // insertion sort: a line has few labels
		for j := i; j > 0 && p.labelNameLess(pairs, order[j], order[j-1]); j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	p.order32 = order
	h := uint64(offset64)
	for _, i := range order {
		if i < 0 {
			h = hashBytes(h, nameLabel)
			h = hashString(h, familyName)
			continue
		}
		h = hashBytes(h, p.arena[pairs[i].name.start:pairs[i].name.end])
		h = hashBytes(h, p.arena[pairs[i].value.start:pairs[i].value.end])
	}
	return h
}

const offset64, prime64 = 14695981039346656037, 1099511628211

// nameLabel is the label that holds a series' name in a signature.
var nameLabel = []byte("__name__")

// labelNameLess orders two of the line's labels by name, -1 standing for
// __name__.
func (p *parser) labelNameLess(pairs []pairSpan, i, j int32) bool {
	return bytes.Compare(p.pairName(pairs, i), p.pairName(pairs, j)) < 0
}

func (p *parser) pairName(pairs []pairSpan, i int32) []byte {
	if i < 0 {
		return nameLabel
	}
	return p.arena[pairs[i].name.start:pairs[i].name.end]
}

// hashBytes and hashString add b, then the separator 0xff, to an FNV-1a
// hash.
func hashBytes(h uint64, b []byte) uint64 {
	for _, c := range b {
		h = (h ^ uint64(c)) * prime64
	}
	return (h ^ 0xff) * prime64
}

func hashString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * prime64
	}
	return (h ^ 0xff) * prime64
}
