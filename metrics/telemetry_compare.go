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
	// Difference is Client − Server: the network both ways, the server's
	// HTTP front end before its clock starts (vLLM's starts at
	// tokenisation) and the client's own overhead.
	Difference float64
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
	return ServerClientGap{Metric: metric, Client: d.Avg, Server: l.Mean, Difference: d.Avg - l.Mean}, nil
}
