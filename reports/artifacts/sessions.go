package artifacts

import (
	"fmt"
	"io"

	"github.com/llmbench/llmbench/metrics"
)

// writeSessions prints a conversation point's sessions and, per turn
// index, what resending the history costs: ISL grows turn by turn, and
// TTFT with it unless the server caches the shared prefix.
func writeSessions(w io.Writer, s *metrics.SessionSummary) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "Sessions: %d (%d completed, %d failed, %d cut by the stop condition), %s turns avg, duration p50 %s, p99 %s, %.2f sessions/s\n",
		s.Sessions, s.Completed, s.Failed, s.Cut, avgText(s.Turns), msText(s.Duration, 50), msText(s.Duration, 99), s.Throughput)
	fmt.Fprintf(w, "Per turn: %4s %8s %10s %10s %12s %8s\n", "turn", "requests", "TTFT p50", "TTFT p99", "latency p50", "ISL avg")
	for _, t := range s.PerTurn {
		fmt.Fprintf(w, "          %4d %8d %10s %10s %12s %8s\n", t.Turn, t.Requests,
			msText(t.TimeToFirstToken, 50), msText(t.TimeToFirstToken, 99), msText(t.RequestLatency, 50), avgText(t.InputSequenceLength))
	}
}
