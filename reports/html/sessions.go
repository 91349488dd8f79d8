package html

import (
	"fmt"
	"strconv"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// sessionView is a conversation point's sessions and, per turn index,
// what resending the history costs.
type sessionView struct {
	Point   string
	Summary string
	Turns   []turnRow
}

type turnRow struct {
	Turn, Requests, TTFTP50, TTFTP99, LatencyP50, ISL string
}

// newSessionView reports false for a point without conversations.
func newSessionView(pt *runtime.PointResult) (sessionView, bool) {
	s := pt.Outcome.Summary.Sessions
	if s == nil {
		return sessionView{}, false
	}
	sv := sessionView{Point: pt.Params.Label(), Summary: fmt.Sprintf(
		"%d sessions: %d completed, %d failed, %d cut by the stop condition; %s turns on average; duration p50 %s ms, p99 %s ms; %.2f sessions/s",
		s.Sessions, s.Completed, s.Failed, s.Cut, avgOf(s.Turns), distCell(metrics.Duration, s.Duration, 50), distCell(metrics.Duration, s.Duration, 99), s.Throughput)}
	for _, t := range s.PerTurn {
		sv.Turns = append(sv.Turns, turnRow{Turn: strconv.Itoa(t.Turn), Requests: strconv.Itoa(t.Requests),
			TTFTP50: distCell(metrics.TTFT, t.TimeToFirstToken, 50), TTFTP99: distCell(metrics.TTFT, t.TimeToFirstToken, 99),
			LatencyP50: distCell(metrics.RequestLatency, t.RequestLatency, 50), ISL: avgOf(t.InputSequenceLength)})
	}
	return sv, true
}

func avgOf(d *metrics.Distribution) string {
	if d == nil {
		return absent
	}
	return fmt.Sprintf("%.1f", d.Avg)
}

// shardNote says how a merged point was measured: by how many shards,
// each one's share of the requests, and how far apart they started; ""
// for a point one process measured.
func shardNote(pt *runtime.PointResult) string {
	if len(pt.Outcome.Shards) == 0 {
		return ""
	}
	return pt.Params.Label() + ": " + runtime.DescribeShards(pt.Outcome.Shards)
}
