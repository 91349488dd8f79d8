package metrics

import (
	"fmt"
	"math"
)

// ServerClientGap sets the server's view of a latency beside the client's.
type ServerClientGap struct {
	// Metric is LatencyTTFT or LatencyRequestLatency.
	Metric string
	// Client and Server are the two means, in ns.
	Client, Server float64
	// ClientCount and ServerCount are the requests each mean is over: the
	// client's measured requests, and those the server's histogram
	// counted between the scrapes around the window (warm-up requests and
	// other clients' too). Equal counts make the two means comparable.
	ClientCount, ServerCount float64
	// Difference is Client − Server: the network both ways, the server's
	// HTTP front end before its clock starts (vLLM's starts at
	// tokenisation) and the client's own overhead. It is unknown when
	// negative: the server's clock runs inside the client's for every
	// request, so a server mean above the client's is not a measurement of
	// those but a sign that the two windows held different requests
	// (another client's, requests the scrapes around the window caught).
	Difference TelemetryValue
}

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

// CompareServerLatency puts the server's mean TTFT (or request latency)
// over a point beside the client's. The two means are over nearly, not
// exactly, the same requests: the server's histogram counts every request
// it finished between the scrapes around the window, other clients' too,
// and ServerLatency.Count against Summary.RequestCount shows how close
// they are. It is an error wrapping ErrNotMeasured when either side lacks
// the metric.
func CompareServerLatency(metric string, client *Summary, server *TelemetrySummary) (ServerClientGap, error) {
	var d *Distribution
	switch metric {
	case LatencyTTFT:
		if client != nil {
			d = client.TimeToFirstToken
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
