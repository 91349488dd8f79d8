package metrics

import "strconv"

// replicaKey selects one replica of an endpoint with several URLs:
// "@ replica=1".
const replicaKey = "replica"

// replica reads replica=N, N the replica's index in the endpoint's URL
// list. A telemetry metric has no value per replica, and a baseline run
// keeps no per-replica runs to compare with, so both are refused.
func (p *gateParser) replica(g *Gate) (string, *GateError) {
	vpos, gerr := p.selector(replicaKey, "replica", g.Replica != nil, g.Baseline)
	if gerr != nil {
		return "", gerr
	}
	digits := p.scan(isDigit)
	n, err := strconv.Atoi(digits)
	if digits == "" || err != nil || isNameByte(byteAt(p.src, p.pos)) || byteAt(p.src, p.pos) == '.' {
		return "", p.errorf(vpos, "want a replica's index (0, 1, ...) in the endpoint's URL list after replica=, got %s", p.got(vpos))
	}
	g.Replica = &n
	return replicaKey + "=" + digits, nil
}
