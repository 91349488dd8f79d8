package sim

import (
	"fmt"
	"net"
	"net/http"
)

// FaultHeader forces a fault on one request, for tests that need it on cue:
// one of 429, 500, reset, malformed, stall, or none (no fault even when the
// configured rates would pick one).
const FaultHeader = "X-Sim-Fault"

// fault is the misbehaviour chosen for one request.
type fault int

const (
	faultNone fault = iota
	fault429
	fault500
	faultReset
	faultMalformed
	faultStall
)

var faultNames = map[string]fault{
	"none": faultNone, "429": fault429, "500": fault500,
	"reset": faultReset, "malformed": faultMalformed, "stall": faultStall,
}

type faultRate struct {
	name string
	kind fault
	rate float64
}

// faultRates lists the configured fractions in the fixed order in which
// one uniform draw is mapped onto them.
func (c Config) faultRates() []faultRate {
	return []faultRate{
		{"error_rate_429", fault429, c.ErrorRate429},
		{"error_rate_500", fault500, c.ErrorRate500},
		{"reset_rate", faultReset, c.ResetRate},
		{"malformed_rate", faultMalformed, c.MalformedRate},
		{"stall_rate", faultStall, c.StallRate},
	}
}

// pickFault maps a uniform draw u in [0, 1) onto the fault fractions laid
// end to end, so each fault occurs with exactly its configured probability.
// A fault with rate 0 is never picked: its interval is empty.
func (c Config) pickFault(u float64) fault {
	end := 0.0
	for _, r := range c.faultRates() {
		end += r.rate
		if u < end {
			return r.kind
		}
	}
	return faultNone
}

// parseFaultHeader reads X-Sim-Fault; ok is false when the header is absent.
func parseFaultHeader(v string) (f fault, ok bool, err error) {
	if v == "" {
		return faultNone, false, nil
	}
	f, ok = faultNames[v]
	if !ok {
		return faultNone, false, fmt.Errorf("%s must be one of 429, 500, reset, malformed, stall, none; got %q", FaultHeader, v)
	}
	return f, true, nil
}

// abortConnection resets the client's connection: the hijacked TCP socket
// is closed with SO_LINGER 0, so the peer gets an RST and a truncated
// chunked body, as when a server process or a proxy dies mid-stream.
func abortConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// Not hijackable (HTTP/2): let net/http abort the stream instead.
		panic(http.ErrAbortHandler)
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}
