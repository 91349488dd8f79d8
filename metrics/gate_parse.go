package metrics

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// GateError is a malformed gate. Col is the 1-based byte column of the
// offending token in Gate, so the scenario loader can add it to the
// position of the string literal the gate was written in and point the
// user at the exact character.
type GateError struct {
	// Gate is the gate text as written.
	Gate string
	// Col is the byte offset of the offending token plus 1; len(Gate)+1
	// when the gate ended too early.
	Col int
	// Msg names the offending token and what was expected instead.
	Msg string
}

// Error renders the error as `gate "TEXT": col N: MESSAGE`.
func (e *GateError) Error() string {
	return fmt.Sprintf("gate %q: col %d: %s", e.Gate, e.Col, e.Msg)
}

// gateOps are the comparison operators, two-byte ones first so that "<="
// is not read as "<" followed by "=".
var gateOps = []string{"<=", ">=", "==", "!=", "<", ">"}

// pointParams are the load parameters a gate's @ conditions can select
// sweep points by, and whether their values are whole numbers.
var pointParams = map[string]bool{
	"concurrency": true, "rate": false, "input_tokens": true, "output_tokens": true,
}

const pointParamList = "concurrency, rate, input_tokens, output_tokens or component"

// ParseGate parses a gate once, when the scenario loads, into the values it
// is evaluated with after every point (SPEC §6):
//
//	METRIC[.STAT] OP VALUE[UNIT] [@ COND[, COND...]]
//	METRIC[.STAT] OP baseline [* FACTOR]   (or FACTOR * baseline)
//
// Metric names are normalised to their short form (time_to_first_token is
// ttft), statistics to avg/min/max/std/pNN (mean is avg, median p50), and
// values to the metric's native unit (ns for times, where a bare number is
// ms; a ratio for error_rate, where 1% is 0.01). A malformed gate is a
// *GateError naming the offending token, its column and what was wanted.
func ParseGate(s string) (Gate, error) {
	return parseGate(&gateParser{src: s})
}

// ParseStoredGate reads a gate as a stored run holds it: as ParseGate,
// but without the refusals of gates that cannot mean what they say
// (checkRatio), which came after runs were stored with such gates — a
// stored run is re-read as it was judged, never refused.
func ParseStoredGate(s string) (Gate, error) {
	return parseGate(&gateParser{src: s, stored: true})
}

func parseGate(p *gateParser) (Gate, error) {
	g := Gate{Source: p.src}
	m, err := p.metric(&g)
	if err == nil {
		err = p.operator(&g)
	}
	if err == nil {
		err = p.limit(&g, m)
	}
	if err == nil {
		err = p.conditions(&g)
	}
	if err != nil {
		return Gate{}, err
	}
	return g, nil
}

// gateParser scans a gate left to right; pos is the byte offset of the
// next unread byte.
type gateParser struct {
	src string
	pos int
	// m is the gate's metric, once read.
	m *Metric
	// stored reads a gate a stored run holds (ParseStoredGate).
	stored bool
}

func (p *gateParser) errorf(pos int, format string, args ...any) *GateError {
	return &GateError{Gate: p.src, Col: pos + 1, Msg: fmt.Sprintf(format, args...)}
}

func (p *gateParser) eof() bool { return p.pos >= len(p.src) }

func (p *gateParser) peek(c byte) bool { return p.pos < len(p.src) && p.src[p.pos] == c }

func (p *gateParser) skipSpace() {
	for p.pos < len(p.src) && isGateSpace(p.src[p.pos]) {
		p.pos++
	}
}

// scan consumes the longest run of bytes satisfying in and returns it.
func (p *gateParser) scan(in func(byte) bool) string {
	start := p.pos
	for p.pos < len(p.src) && in(p.src[p.pos]) {
		p.pos++
	}
	return p.src[start:p.pos]
}

// keyword consumes w when it is the next whole word.
func (p *gateParser) keyword(w string) bool {
	end := p.pos + len(w)
	if !strings.HasPrefix(p.src[p.pos:], w) || end < len(p.src) && isNameByte(p.src[end]) {
		return false
	}
	p.pos = end
	return true
}

// got describes what stands at pos for a "want X, got Y" message: the
// word there, quoted, or "end of gate".
func (p *gateParser) got(pos int) string {
	if pos >= len(p.src) {
		return "end of gate"
	}
	end := pos + 1
	for end < len(p.src) && !isGateSpace(p.src[end]) {
		end++
	}
	return strconv.Quote(p.src[pos:end])
}

func isGateSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isOpByte(c byte) bool    { return c == '<' || c == '>' || c == '=' || c == '!' }
func isDigit(c byte) bool     { return '0' <= c && c <= '9' }
func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c) || c == '_'
}

// metric reads METRIC[.per_gpu][.STAT], filling Metric, PerGPU and Stat.
func (p *gateParser) metric(g *Gate) (*Metric, *GateError) {
	p.skipSpace()
	if p.eof() {
		return nil, p.errorf(p.pos, `empty gate, want METRIC[.STAT] OP VALUE such as "ttft.p99 < 500ms"`)
	}
	start := p.pos
	word := p.scan(func(c byte) bool { return !isGateSpace(c) && !isOpByte(c) })
	if word == "" {
		return nil, p.errorf(start, "want a metric such as ttft.p99 or error_rate, got %s", p.got(start))
	}
	name, stat, dotted := strings.Cut(word, ".")
	m := lookupGated(name)
	if m == nil {
		return nil, p.errorf(start, "unknown metric %q, want %s", name, gatedList())
	}
	g.Metric, p.m = m, m
	statPos := start + len(name) + 1
	if rest, ok := cutPerGPU(stat); dotted && ok {
		if !m.PerGPU {
			return nil, p.errorf(statPos, "%s is not measured per GPU; %s applies to gpu_power and gpu_utilization", m.Name, perGPUKey)
		}
		g.PerGPU = true
		name += "." + perGPUKey
		stat, dotted = strings.CutPrefix(rest, ".")
		statPos += len(perGPUKey) + 1
	}
	switch {
	case !dotted && m.Stats():
		g.Stat = "avg"
	case !dotted:
	case stat == "":
		return nil, p.errorf(statPos, "want a statistic after %q, such as avg or p99", name+".")
	default:
		norm, msg := normalizeStat(stat)
		switch {
		case msg != "":
			return nil, p.errorf(statPos, "%s", msg)
		case !m.Stats() && norm != "avg":
			return nil, p.errorf(statPos, "%s is a run-level value and takes no statistic (at most .avg), got %q", m.Name, stat)
		case m.Stats():
			g.Stat = norm
		}
	}
	return m, nil
}

// normalizeStat resolves a statistic to its canonical name (mean is avg,
// median p50, p099.90 p99.9); msg says what is wrong when it is none.
func normalizeStat(stat string) (norm, msg string) {
	switch stat {
	case "avg", "mean":
		return "avg", ""
	case "min", "max", "std":
		return stat, ""
	case "median":
		return "p50", ""
	}
	p, ok := percentileOf(stat)
	if !ok {
		return "", fmt.Sprintf("unknown statistic %q, want avg, min, max, std, median or a percentile such as p99 or p99.9", stat)
	}
	if p > 100 {
		return "", fmt.Sprintf("percentile %q is outside p0..p100", stat)
	}
	return "p" + strconv.FormatFloat(p, 'f', -1, 64), ""
}

// percentileOf reads "pNN" or "pNN.N" (any number of digits either side).
func percentileOf(stat string) (float64, bool) {
	digits, ok := strings.CutPrefix(stat, "p")
	whole, frac, dotted := strings.Cut(digits, ".")
	allDigits := func(s string) bool {
		return s != "" && strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0
	}
	if !ok || !allDigits(whole) || dotted && !allDigits(frac) {
		return 0, false
	}
	v, err := strconv.ParseFloat(digits, 64)
	return v, err == nil
}

// operator reads OP.
func (p *gateParser) operator(g *Gate) *GateError {
	p.skipSpace()
	for _, op := range gateOps {
		if strings.HasPrefix(p.src[p.pos:], op) {
			g.Op = op
			p.pos += len(op)
			return nil
		}
	}
	start := p.pos
	got := p.got(start)
	if word := p.scan(isOpByte); word != "" {
		got = strconv.Quote(word)
	}
	return p.errorf(start, "want an operator (<, <=, >, >=, == or !=), got %s", got)
}

// number reads an unsigned decimal number, with an optional fraction and
// exponent; ok is false, with nothing consumed, when none stands at pos.
func (p *gateParser) number() (v float64, text string, ok bool, err *GateError) {
	start := p.pos
	mantissa := p.scan(isDigit)
	if p.peek('.') {
		p.pos++
		mantissa += "." + p.scan(isDigit)
	}
	if strings.Trim(mantissa, ".") == "" {
		p.pos = start
		return 0, "", false, nil
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		expStart := p.pos
		p.pos++
		if p.peek('+') || p.peek('-') {
			p.pos++
		}
		if p.scan(isDigit) == "" {
			p.pos = expStart // "5e" is 5 followed by a unit "e"
		}
	}
	text = p.src[start:p.pos]
	v, perr := strconv.ParseFloat(text, 64)
	if perr != nil || math.IsInf(v, 0) {
		return 0, text, false, p.errorf(start, "number %q is out of range", text)
	}
	return v, text, true, nil
}

// limit reads the right-hand side: VALUE[UNIT], baseline [* FACTOR] or
// FACTOR * baseline, filling Value and Baseline.
func (p *gateParser) limit(g *Gate, m *Metric) *GateError {
	p.skipSpace()
	start := p.pos
	if p.keyword("baseline") {
		return p.baselineFactor(g)
	}
	v, text, ok, err := p.number()
	switch {
	case err != nil:
		return err
	case !ok:
		return p.errorf(start, "want a number or baseline, got %s", p.got(start))
	}
	p.skipSpace()
	if p.peek('*') {
		p.pos++
		p.skipSpace()
		if kw := p.pos; !p.keyword("baseline") {
			return p.errorf(kw, "want baseline after %q, got %s", text+" *", p.got(kw))
		}
		return p.setFactor(g, v, text, start)
	}
	unitPos := p.pos
	unit := p.scan(func(c byte) bool { return !isGateSpace(c) && c != '@' && c != ',' && c != '*' })
	units := quantityUnits[m.q]
	convert, ok := units.units[unit]
	if m.q == quantityCost && isCurrencyCode(unit) {
		g.Currency, convert, ok = unit, sameUnit, true
	}
	switch {
	case !ok && isKnownUnit(unit):
		return p.errorf(unitPos, "unit %q does not apply to %s, want %s", unit, m.Name, units.want)
	case !ok:
		return p.errorf(unitPos, "unknown unit %q, want %s", unit, units.want)
	case m.q == quantityRatio && unit == "%" && v > 100:
		return p.errorf(start, "%s cannot exceed 100%%, got %s%%", m.Name, text)
	case m.q == quantityRatio && unit == "" && v > 1:
		return p.errorf(start, "%s is a ratio from 0 to 1, got %s; write %s%% for a percentage", m.Name, text, text)
	}
	g.Value = convert(v)
	if math.IsInf(g.Value, 0) {
		return p.errorf(start, "value %q is out of range", text+unit)
	}
	if m.q == quantityRatio && !p.stored {
		return p.checkRatio(g, m, start, text, unit)
	}
	return nil
}

// baselineFactor reads the optional "* FACTOR" after baseline.
func (p *gateParser) baselineFactor(g *Gate) *GateError {
	p.skipSpace()
	if !p.peek('*') {
		return p.setFactor(g, 1, "1", p.pos)
	}
	p.pos++
	p.skipSpace()
	start := p.pos
	v, text, ok, err := p.number()
	switch {
	case err != nil:
		return err
	case !ok:
		return p.errorf(start, `want a factor after "baseline *", such as 1.1, got %s`, p.got(start))
	}
	if unitPos := p.pos; !p.eof() && !isGateSpace(p.src[unitPos]) && !p.peek('@') {
		return p.errorf(unitPos, "a baseline factor takes no unit, got %s", p.got(unitPos))
	}
	return p.setFactor(g, v, text, start)
}

func (p *gateParser) setFactor(g *Gate, v float64, text string, pos int) *GateError {
	if v <= 0 {
		return p.errorf(pos, "a baseline factor must be above 0, got %s", text)
	}
	if g.Op == "==" || g.Op == "!=" {
		return p.errorf(pos, "a baseline gate compares with <, <=, > or >= (judged with a confidence interval), got %s", g.Op)
	}
	g.Value, g.Baseline = v, true
	return nil
}

// conditions reads the end of the gate: nothing, or "@" and one or more
// comma-separated PARAM=VALUE conditions.
func (p *gateParser) conditions(g *Gate) *GateError {
	p.skipSpace()
	if p.eof() {
		return nil
	}
	if !p.peek('@') {
		return p.errorf(p.pos, `unexpected %s, want "@" and point conditions or the end of the gate`, p.got(p.pos))
	}
	p.pos++
	after := `"@"`
	for {
		last, err := p.nextCondition(g, after)
		if err != nil {
			return err
		}
		p.skipSpace()
		if p.eof() {
			return nil
		}
		if !p.peek(',') {
			return p.errorf(p.pos, `unexpected %s after %s, want "," and another condition or the end of the gate`, p.got(p.pos), last)
		}
		p.pos++
		after = `","`
	}
}

// nextCondition reads one condition into g, a point parameter's or the
// dataset component's, and returns it as written, for messages.
func (p *gateParser) nextCondition(g *Gate, after string) (string, *GateError) {
	p.skipSpace()
	if word := p.src[p.pos:]; strings.HasPrefix(word, componentKey) && !isNameByte(byteAt(word, len(componentKey))) {
		return p.component(g)
	}
	if word := p.src[p.pos:]; strings.HasPrefix(word, replicaKey) && !isNameByte(byteAt(word, len(replicaKey))) {
		return p.replica(g)
	}
	if word := p.src[p.pos:]; strings.HasPrefix(word, stageKey) && !isNameByte(byteAt(word, len(stageKey))) {
		return p.stage(g)
	}
	c, err := p.condition(g, after)
	if err != nil {
		return "", err
	}
	g.At = append(g.At, c)
	return c.Param + "=" + plainNumber(c.Value), nil
}

// componentKey selects a dataset component of a mix: "@ component=chat".
const componentKey = "component"

// component reads component=NAME, NAME being a mix component's name.
func (p *gateParser) component(g *Gate) (string, *GateError) {
	vpos, err := p.selector(componentKey, "dataset component", g.Component != "", false)
	if err != nil {
		return "", err
	}
	name := p.scan(isComponentByte)
	if name == "" {
		return "", p.errorf(vpos, "want a dataset component's name after component=, got %s", p.got(vpos))
	}
	g.Component = name
	return componentKey + "=" + name, nil
}

// selector reads the opening of a point selector, "KEY =", refusing it
// given twice, on a telemetry metric (measured for the whole point) and,
// when onBaseline, on a baseline gate (which compares whole points). It
// returns where the value starts. what names the part in messages
// ("dataset component", "replica", "stage").
func (p *gateParser) selector(key, what string, given, onBaseline bool) (int, *GateError) {
	start := p.pos
	switch {
	case given:
		return 0, p.errorf(start, "%s is given twice", key)
	case p.m != nil && p.m.Need == NeedTelemetry:
		return 0, p.errorf(start, "%s is measured from telemetry for the whole point, which has no value per %s; drop %s=", p.m.Name, what, key)
	case onBaseline:
		return 0, p.errorf(start, "a baseline gate compares whole points; drop %s=", key)
	}
	p.pos += len(key)
	p.skipSpace()
	if !p.peek('=') {
		return 0, p.errorf(p.pos, `want "=" after %s, got %s`, key, p.got(p.pos))
	}
	p.pos++
	p.skipSpace()
	return p.pos, nil
}

// isComponentByte is a byte of a component name as synthetic(name=...)
// allows it in a gate: letters, digits, "_", "-" and ".".
func isComponentByte(c byte) bool { return isNameByte(c) || c == '-' || c == '.' }

// byteAt is s[i], or 0 past its end.
func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// condition reads one PARAM=VALUE.
func (p *gateParser) condition(g *Gate, after string) (PointCondition, *GateError) {
	p.skipSpace()
	start := p.pos
	param := p.scan(isNameByte)
	whole, known := pointParams[param]
	switch {
	case param == "":
		return PointCondition{}, p.errorf(start, "want a condition such as concurrency=16 after %s, got %s", after, p.got(start))
	case !known:
		return PointCondition{}, p.errorf(start, "unknown point parameter %q, want %s", param, pointParamList)
	case slices.ContainsFunc(g.At, func(c PointCondition) bool { return c.Param == param }):
		return PointCondition{}, p.errorf(start, "%s is given twice", param)
	}
	p.skipSpace()
	if !p.peek('=') {
		return PointCondition{}, p.errorf(p.pos, `want "=" after %s, got %s`, param, p.got(p.pos))
	}
	p.pos++
	p.skipSpace()
	vpos := p.pos
	v, text, ok, err := p.number()
	switch {
	case err != nil:
		return PointCondition{}, err
	case !ok:
		return PointCondition{}, p.errorf(vpos, "want a number for %s, got %s", param, p.got(vpos))
	case whole && v != math.Trunc(v):
		return PointCondition{}, p.errorf(vpos, "%s must be a whole number, got %s", param, text)
	}
	return PointCondition{Param: param, Value: v}, nil
}
