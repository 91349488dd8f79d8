package metrics

import "strconv"

// replicaKey selects one replica of an endpoint with several URLs:
// "@ replica=1".
const replicaKey = "replica"

// replica reads replica=N, N the replica's index in the endpoint's URL
// list. A telemetry metric has no value per replica, and a baseline run
// keeps no per-replica runs to compare with, so both are refused.
func (p *gateParser) replica(g *Gate) (string, *GateError) {
	start := p.pos
	switch {
	case g.Replica != nil:
		return "", p.errorf(start, "replica is given twice")
	case p.m != nil && p.m.Need == NeedTelemetry:
		return "", p.errorf(start, "%s is measured from telemetry for the whole point, which has no value per replica; drop replica=", p.m.Name)
	case g.Baseline:
		return "", p.errorf(start, "a baseline gate compares whole points; drop replica=")
	}
	p.pos += len(replicaKey)
	p.skipSpace()
	if !p.peek('=') {
		return "", p.errorf(p.pos, `want "=" after replica, got %s`, p.got(p.pos))
	}
	p.pos++
	p.skipSpace()
	vpos := p.pos
	digits := p.scan(isDigit)
	n, err := strconv.Atoi(digits)
	if digits == "" || err != nil || isNameByte(byteAt(p.src, p.pos)) || byteAt(p.src, p.pos) == '.' {
		return "", p.errorf(vpos, "want a replica's index (0, 1, ...) in the endpoint's URL list after replica=, got %s", p.got(vpos))
	}
	g.Replica = &n
	return replicaKey + "=" + digits, nil
}
