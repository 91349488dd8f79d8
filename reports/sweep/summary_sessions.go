package sweep

import "github.com/llmbench/llmbench/metrics"

// sessionsJSON is a conversation point's per-session and per-turn view,
// in report units (ms, tokens); absent for single-turn points.
type sessionsJSON struct {
	Sessions   int        `json:"sessions"`
	Completed  int        `json:"completed"`
	Failed     int        `json:"failed"`
	Cut        int        `json:"cut"`
	Duration   *distJSON  `json:"duration"`
	Turns      *distJSON  `json:"turns"`
	Throughput float64    `json:"session_throughput"`
	PerTurn    []turnJSON `json:"per_turn"`
}

type turnJSON struct {
	Turn           int       `json:"turn"`
	Requests       int       `json:"requests"`
	TTFT           *distJSON `json:"ttft"`
	RequestLatency *distJSON `json:"request_latency"`
	ISL            *distJSON `json:"isl"`
	OSL            *distJSON `json:"osl"`
}

func sessionsOf(s *metrics.SessionSummary) *sessionsJSON {
	if s == nil {
		return nil
	}
	sj := &sessionsJSON{Sessions: s.Sessions, Completed: s.Completed, Failed: s.Failed, Cut: s.Cut,
		Duration: distIn(metrics.Duration, s.Duration), Turns: dist(s.Turns), Throughput: s.Throughput, PerTurn: []turnJSON{}}
	for _, t := range s.PerTurn {
		sj.PerTurn = append(sj.PerTurn, turnJSON{Turn: t.Turn, Requests: t.Requests,
			TTFT: distIn(metrics.TTFT, t.TimeToFirstToken), RequestLatency: distIn(metrics.RequestLatency, t.RequestLatency),
			ISL: distIn(metrics.ISL, t.InputSequenceLength), OSL: distIn(metrics.OSL, t.OutputSequenceLength)})
	}
	return sj
}
