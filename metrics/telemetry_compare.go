package metrics

import (
	"fmt"
	"math"
)

// ServerClientGap sets the server's view of a latency beside the client's.
type ServerClientGap struct {
	// Metric is LatencyTTFT or LatencyRequestLatency.
	Metric string
	// Client and Server are the two means, in ns. Means, because the
	// server's mean is exact (Δsum/Δcount) while its quantiles are known
	// only to a histogram bucket (ServerLatency.P99In): a client quantile
	// beside a server quantile would set a measurement against an
	// interpolation.
	Client, Server float64
	// ClientCount and ServerCount are the requests each mean is over: the
	// client's measured requests, and those the server's histogram
	// counted between the scrapes around the window (warm-up requests and
	// other clients' too). Equal counts make the two means comparable.
	ClientCount, ServerCount float64
	// Difference is Client − Server: what happens outside the server's
	// clock (GapName). It is unknown when negative: the server's clock
	// runs inside the client's for every request, so a server mean above
	// the client's is not a measurement of those but a sign that the two
	// windows held different requests (another client's, requests the
	// scrapes around the window caught).
	Difference TelemetryValue
}

// GapName names the client − server difference: everything outside the
// server's clock, of which the server's own front end is a part and not a
// small one. vLLM 0.32 starts its clock when it begins rendering the
// request, after its HTTP server has received the body and parsed and
// validated the JSON, and stops it when the engine's output reaches the
// front end, before the response is detokenised, serialised and sent
// (docs/telemetry.md says where each server's clock starts and stops).
const GapName = "server front end + network + client"

// WindowsDiffer is why a negative server-vs-client difference is no
// figure; reports print it where the difference would be.
const WindowsDiffer = "n/a (server window differs from client's)"

// gapDifference is Client − Server, unknown when negative.
func gapDifference(client, server float64) TelemetryValue {
	if d := client - server; d >= 0 {
		return knownValue(d)
	}
	return unknownValue("%s: the server's mean %.2f ms is above the client's %.2f ms, so the server's histograms counted other requests than the client's",
		WindowsDiffer, server/1e6, client/1e6)
}

// ErrNoFirstToken is why a TTFT is not compared: the client saw no
// response arrive in more than one piece, so its "time to first token" is
// the time to the whole answer (a non-streamed run), not the server's
// first token; the run's request latencies are compared instead.
var ErrNoFirstToken = fmt.Errorf("client TTFT is the time to the whole answer (no response arrived in more than one chunk: not streamed), not a first-token time: %w", ErrNotMeasured)

// FirstTokenTimed says whether a client's TTFT timed a first token: some
// response arrived in more than one content chunk (TimeToSecondToken is
// set). A non-streamed response is one chunk, whose arrival is the whole
// answer's; so is a streamed one that a proxy buffered, which is why this
// reads what the client saw rather than whether it asked for a stream.
func FirstTokenTimed(s *Summary) bool {
	return s != nil && s.TimeToSecondToken != nil && s.TimeToSecondToken.Count > 0
}

// CompareServerLatency puts the server's mean TTFT (or request latency)
// over a point beside the client's, only between like quantities: TTFT
// when the client timed a first token (FirstTokenTimed, else
// ErrNoFirstToken), request latency always. The two means are over
// nearly, not exactly, the same requests: the server's histogram counts
// every request it finished between the scrapes around the window, other
// clients' too, and ServerLatency.Count against Summary.RequestCount shows
// how close they are. It is an error wrapping ErrNotMeasured when either
// side lacks the metric.
func CompareServerLatency(metric string, client *Summary, server *TelemetrySummary) (ServerClientGap, error) {
	var d *Distribution
	switch metric {
	case LatencyTTFT:
		if client != nil {
			d = client.TimeToFirstToken
		}
		if d != nil && !FirstTokenTimed(client) {
			return ServerClientGap{}, ErrNoFirstToken
		}
	case LatencyRequestLatency:
		if client != nil {
			d = client.RequestLatency
		}
	default:
		return ServerClientGap{}, fmt.Errorf("server %s has no client-side counterpart; want %s or %s", metric, LatencyTTFT, LatencyRequestLatency)
	}
	if d == nil {
		return ServerClientGap{}, fmt.Errorf("client %s: %w", metric, ErrNotMeasured)
	}
	var l *ServerLatency
	if server != nil {
		l = server.Server.Latency(metric)
	}
	switch {
	case l == nil:
		return ServerClientGap{}, fmt.Errorf("server %s: %w: no source exports it", metric, ErrNotMeasured)
	case !l.OK:
		return ServerClientGap{}, fmt.Errorf("server %s: %w: %s", metric, ErrNotMeasured, l.Why)
	case math.IsNaN(l.Mean):
		return ServerClientGap{}, fmt.Errorf("server %s: %w: the histogram has no _sum", metric, ErrNotMeasured)
	}
	return ServerClientGap{Metric: metric, Client: d.Avg, Server: l.Mean, ClientCount: float64(d.Count), ServerCount: l.Count,
		Difference: gapDifference(d.Avg, l.Mean)}, nil
}
