package sweep

import (
	"fmt"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime"
)

// prefixCacheJSON is a point's prefix-cache hit share (SPEC §12), pooled
// over its repeats; absent when the server reported no cached tokens.
type prefixCacheJSON struct {
	// HitShare is CachedTokens / PromptTokens, in %.
	HitShare     float64 `json:"hit_share"`
	CachedTokens int64   `json:"cached_tokens"`
	PromptTokens int64   `json:"prompt_tokens"`
	// Requests are the completed requests whose usage carried a
	// cached-token count, which the sums are over.
	Requests int `json:"requests"`
}

// cacheShiftJSON is the warning that a sweep's points were served from
// the prefix cache in different measure: their latencies differ by the
// cache as well as by the load.
type cacheShiftJSON struct {
	// Threshold is metrics.CacheShiftThreshold in percentage points.
	Threshold float64 `json:"threshold"`
	// Spread is High's share − Low's, in percentage points.
	Spread  float64          `json:"spread"`
	Low     cacheExtremeJSON `json:"low"`
	High    cacheExtremeJSON `json:"high"`
	Message string           `json:"message"`
}

type cacheExtremeJSON struct {
	Point    int     `json:"point"`
	Label    string  `json:"label"`
	HitShare float64 `json:"hit_share"`
}

// PointPrefixCache is a point's share over all its repeats: a repeat
// sends the point's prompts again, so it is the point as measured.
func PointPrefixCache(p *runtime.PointResult) *metrics.PrefixCacheShare {
	shares := make([]*metrics.PrefixCacheShare, 0, len(p.Repeats))
	for _, r := range p.Repeats {
		if r != nil {
			shares = append(shares, r.Summary.PrefixCache)
		}
	}
	if len(shares) == 0 && p.Outcome != nil {
		shares = append(shares, p.Outcome.Summary.PrefixCache)
	}
	return metrics.PoolPrefixCache(shares...)
}

func prefixCacheOf(p *runtime.PointResult) *prefixCacheJSON {
	s := PointPrefixCache(p)
	if s == nil {
		return nil
	}
	return &prefixCacheJSON{HitShare: 100 * s.Share, CachedTokens: s.CachedTokens, PromptTokens: s.PromptTokens, Requests: s.Requests}
}

// CacheShift is the experiment's points' shift in prefix-cache share
// past metrics.CacheShiftThreshold, nil when there is none. Each point's
// share is metrics.RunsCacheShare's over its repeats, the rule compare
// uses: the responses' cached tokens, or, when they carry none (vLLM's
// default), the server's own hit counters over each run's window.
func CacheShift(res *runtime.ExperimentResult) *metrics.CacheShift {
	shares := make([]*metrics.PrefixCacheShare, len(res.Points))
	for i := range res.Points {
		if share, _, ok := metrics.RunsCacheShare(pointRuns(&res.Points[i])); ok {
			shares[i] = &metrics.PrefixCacheShare{Share: share}
		}
	}
	return metrics.CacheShareShift(shares)
}

// pointRuns are a point's repeats as the prefix-cache rule reads them:
// each one's summary and telemetry.
func pointRuns(p *runtime.PointResult) []metrics.RunData {
	outs := p.Repeats
	if len(outs) == 0 && p.Outcome != nil {
		outs = []*runtime.Outcome{p.Outcome}
	}
	runs := make([]metrics.RunData, 0, len(outs))
	for _, o := range outs {
		if o == nil {
			continue
		}
		r := metrics.RunData{Summary: &o.Summary}
		if o.Telemetry != nil {
			r.Telemetry = &o.Telemetry.Summary
		}
		runs = append(runs, r)
	}
	return runs
}

// CacheShiftWarning says in words what CacheShift found, "" when nothing:
// the line under the sweep table, in summary.json and in report.html.
func CacheShiftWarning(res *runtime.ExperimentResult, param string) string {
	words := cacheShiftWords(res, param)
	if words == "" {
		return ""
	}
	return Note{cacheShiftLabel, words}.String()
}

// cacheShiftLabel heads the cache-shift warning, in capitals as the
// console's other warnings (PARTIAL, CLIENT-LIMITED).
const cacheShiftLabel = "CACHE"

// cacheShiftWords is the cache-shift warning after its label.
func cacheShiftWords(res *runtime.ExperimentResult, param string) string {
	c := CacheShift(res)
	if c == nil {
		return ""
	}
	return fmt.Sprintf("the server's prefix-cache hit share differs between points by %.1f percentage points "+
		"(%s %.1f%%, %s %.1f%%), more than %.0f: their latencies differ by cache hits as well as by load "+
		"(prompts sent again: same_prompts=True, analyze without --point-seeds, repeats, or a dataset without a seed)",
		100*c.Spread(), pointName(&res.Points[c.Low], param), 100*c.LowShare,
		pointName(&res.Points[c.High], param), 100*c.HighShare, 100*metrics.CacheShiftThreshold)
}

func cacheShiftOf(res *runtime.ExperimentResult, param string) *cacheShiftJSON {
	c := CacheShift(res)
	if c == nil {
		return nil
	}
	extreme := func(i int, share float64) cacheExtremeJSON {
		return cacheExtremeJSON{Point: i, Label: res.Points[i].Params.Label(), HitShare: 100 * share}
	}
	return &cacheShiftJSON{Threshold: 100 * metrics.CacheShiftThreshold, Spread: 100 * c.Spread(),
		Low: extreme(c.Low, c.LowShare), High: extreme(c.High, c.HighShare), Message: CacheShiftWarning(res, param)}
}
