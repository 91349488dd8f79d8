package sweep

import (
	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

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
		Duration: msDist(s.Duration), Turns: dist(s.Turns), Throughput: s.Throughput, PerTurn: []turnJSON{}}
	for _, t := range s.PerTurn {
		sj.PerTurn = append(sj.PerTurn, turnJSON{Turn: t.Turn, Requests: t.Requests,
			TTFT: msDist(t.TimeToFirstToken), RequestLatency: msDist(t.RequestLatency),
			ISL: dist(t.InputSequenceLength), OSL: dist(t.OutputSequenceLength)})
	}
	return sj
}

// shardsJSON is a merged point's shards: how many measured it, each one's
// share of the requests, and the spread of their start instants.
type shardsJSON struct {
	Count  int         `json:"count"`
	SkewMs float64     `json:"start_skew_ms"`
	Shares []shareJSON `json:"shares"`
}

type shareJSON struct {
	Index    int `json:"index"`
	Requests int `json:"requests"`
	// StartMs is the shard's start after the earliest shard's, ms.
	StartMs float64 `json:"start_offset_ms"`
}

func shardsOf(shares []runtime.ShardShare) *shardsJSON {
	if len(shares) == 0 {
		return nil
	}
	first := shares[0].Started
	for _, s := range shares {
		first = min(first, s.Started)
	}
	sj := &shardsJSON{Count: len(shares), SkewMs: ms(float64(runtime.StartSkew(shares)))}
	for _, s := range shares {
		sj.Shares = append(sj.Shares, shareJSON{Index: s.Index, Requests: s.Requests, StartMs: ms(float64(s.Started - first))})
	}
	return sj
}
