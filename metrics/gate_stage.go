package metrics

// stageKey selects one stage of a stages() load: "@ stage=hold" by its
// name, "@ stage=1" by its index (from 0).
const stageKey = "stage"

// stage reads stage=NAME or stage=INDEX into Gate.Stage as written; the
// scenario resolves it against its stages. A telemetry metric has no
// value per stage, and a baseline run keeps no per-stage runs to compare
// with, so both are refused.
func (p *gateParser) stage(g *Gate) (string, *GateError) {
	start := p.pos
	switch {
	case g.Stage != "":
		return "", p.errorf(start, "stage is given twice")
	case p.m != nil && p.m.Need == NeedTelemetry:
		return "", p.errorf(start, "%s is measured from telemetry for the whole point, which has no value per stage; drop stage=", p.m.Name)
	case g.Baseline:
		return "", p.errorf(start, "a baseline gate compares whole points; drop stage=")
	}
	p.pos += len(stageKey)
	p.skipSpace()
	if !p.peek('=') {
		return "", p.errorf(p.pos, `want "=" after stage, got %s`, p.got(p.pos))
	}
	p.pos++
	p.skipSpace()
	vpos := p.pos
	sel := p.scan(isComponentByte)
	if sel == "" {
		return "", p.errorf(vpos, "want a stage's name or index (0, 1, ...) after stage=, got %s", p.got(vpos))
	}
	g.Stage = sel
	return stageKey + "=" + sel, nil
}
