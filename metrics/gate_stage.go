package metrics

// stageKey selects one stage of a stages() load: "@ stage=hold" by its
// name, "@ stage=1" by its index (from 0).
const stageKey = "stage"

// stage reads stage=NAME or stage=INDEX into Gate.Stage as written; the
// scenario resolves it against its stages. A telemetry metric has no
// value per stage, and a baseline run keeps no per-stage runs to compare
// with, so both are refused.
func (p *gateParser) stage(g *Gate) (string, *GateError) {
	vpos, err := p.selector(stageKey, "stage", g.Stage != "", g.Baseline)
	if err != nil {
		return "", err
	}
	sel := p.scan(isComponentByte)
	if sel == "" {
		return "", p.errorf(vpos, "want a stage's name or index (0, 1, ...) after stage=, got %s", p.got(vpos))
	}
	g.Stage = sel
	return stageKey + "=" + sel, nil
}
