package sweep

import "github.com/llmbench/llmbench/runtime"

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
