package metrics

import (
	"fmt"
	"math"
)

// PrefixCacheShare is how much of a point's prompts the server says it
// served from its prefix cache. A point whose prompts repeat those of an
// earlier point (or of itself) gets a faster prefill than fresh prompts
// would, so its TTFT measures the cache as much as the load; reports show
// the share beside the latencies so the two can be told apart.
//
// It counts the completed requests whose server usage reported a
// cached-token count (Usage.Reported and Usage.CachedReported):
// Share = Σ CachedTokens / Σ PromptTokens over those requests, both as
// the server reported them. Requests without that field are left out of
// both sums rather than counted as uncached, since the server did not
// say.
type PrefixCacheShare struct {
	// CachedTokens and PromptTokens are the two sums.
	CachedTokens, PromptTokens int64
	// Requests is how many requests the sums are over.
	Requests int
	// Share is CachedTokens / PromptTokens, a ratio from 0 to 1 (0 when
	// PromptTokens is 0).
	Share float64
}

// prefixCacheSums accumulates PrefixCacheShare one request at a time.
type prefixCacheSums struct {
	cached, prompt int64
	requests       int
}

// add takes one completed request.
func (c *prefixCacheSums) add(u *Usage) {
	if !u.Reported || !u.CachedReported {
		return
	}
	c.cached += int64(u.CachedTokens)
	c.prompt += int64(u.PromptTokens)
	c.requests++
}

// share is the reduction, nil when no request reported a cached count:
// the server does not report one at all, which is not the same as a
// share of 0.
func (c *prefixCacheSums) share() *PrefixCacheShare {
	if c.requests == 0 {
		return nil
	}
	s := &PrefixCacheShare{CachedTokens: c.cached, PromptTokens: c.prompt, Requests: c.requests}
	if c.prompt > 0 {
		s.Share = float64(c.cached) / float64(c.prompt)
	}
	return s
}

// PoolPrefixCache is the share over several runs together (a point's
// repeats): the sums added, so each run weighs by its prompt tokens. Nil
// runs (no cached counts) add nothing; nil when none had any.
func PoolPrefixCache(shares ...*PrefixCacheShare) *PrefixCacheShare {
	var c prefixCacheSums
	for _, s := range shares {
		if s != nil {
			c.cached += s.CachedTokens
			c.prompt += s.PromptTokens
			c.requests += s.Requests
		}
	}
	return c.share()
}

// CacheShiftThreshold is how far apart (absolute, as a ratio) the
// prefix-cache hit shares of two points of one sweep may be before
// reports warn: 0.10, ten percentage points. A server's prefill time is
// about proportional to the prompt tokens it must compute, so a point
// with ten points more of its prompts cached does a tenth of its prompts'
// prefill work less: a TTFT difference of the order of the ±5% a
// steady-state point is measured to, caused by the cache, not the load.
// Below it, shares wander with LRU eviction as concurrency changes what
// is resident, which fresh prompts per point cannot remove.
const CacheShiftThreshold = 0.10

// CacheShift is a sweep whose points' prefix-cache shares differ by more
// than CacheShiftThreshold: the points with the lowest and the highest.
type CacheShift struct {
	// Low and High index the points given to CacheShareShift.
	Low, High           int
	LowShare, HighShare float64
}

// Spread is HighShare − LowShare.
func (c *CacheShift) Spread() float64 { return c.HighShare - c.LowShare }

// CacheShareShift compares the prefix-cache shares of a sweep's points
// (nil: the point reported none, and is left out). It returns the
// extremes when they differ by more than CacheShiftThreshold, else nil:
// comparing points' latencies is then fair to the cache.
func CacheShareShift(points []*PrefixCacheShare) *CacheShift {
	var c *CacheShift
	for i, p := range points {
		switch {
		case p == nil:
		case c == nil:
			c = &CacheShift{Low: i, High: i, LowShare: p.Share, HighShare: p.Share}
		case p.Share < c.LowShare:
			c.Low, c.LowShare = i, p.Share
		case p.Share > c.HighShare:
			c.High, c.HighShare = i, p.Share
		}
	}
	// The tolerance keeps 0.40 − 0.30 (0.10000000000000003 in floating
	// point) at the threshold, not past it.
	if c == nil || c.Spread() <= CacheShiftThreshold+1e-12 {
		return nil
	}
	return c
}

// RunsCacheShare is the prefix-cache hit share of a side's runs: pooled
// over the cached-token counts their responses carried, or, when none
// carried one (vLLM without --enable-prompt-tokens-details), the mean of
// the server's own hit rate over each run's window (its
// prefix_cache_hits / prefix_cache_queries counters). from names which;
// ok is false when neither was measured.
func RunsCacheShare(runs []RunData) (share float64, from string, ok bool) {
	shares := make([]*PrefixCacheShare, 0, len(runs))
	var server []float64
	for _, r := range runs {
		if r.Summary != nil && r.Summary.PrefixCache != nil {
			shares = append(shares, r.Summary.PrefixCache)
		}
		if r.Telemetry != nil && r.Telemetry.Server.PrefixCacheHitRate.OK {
			server = append(server, r.Telemetry.Server.PrefixCacheHitRate.Value)
		}
	}
	if s := PoolPrefixCache(shares...); s != nil && s.PromptTokens > 0 {
		return s.Share, "responses' cached tokens", true
	}
	if len(server) > 0 {
		return mean(server), "server's counters", true
	}
	return 0, "", false
}

// CacheShareWarning says when two sides were served from the prefix
// cache in different measure (by more than CacheShiftThreshold): their
// latencies then differ by cache hits as well as by the change judged,
// which is the normal case against a long-lived server, since back-to-back
// runs send the same prompts. "" otherwise.
func CacheShareWarning(baseline, candidate []RunData) string {
	b, fromB, okB := RunsCacheShare(baseline)
	c, fromC, okC := RunsCacheShare(candidate)
	if !okB || !okC || math.Abs(c-b) <= CacheShiftThreshold {
		return ""
	}
	return fmt.Sprintf("prefix-cache hit share: baseline %.1f%% (%s), candidate %.1f%% (%s), %.0f points apart: "+
		"their latencies differ by cache hits as well as by the change; give every run its own prompts "+
		"(a dataset seed per run) or reset the server's prefix cache before each run (--reset-prefix-cache, endpoint(reset_prefix_cache = True))",
		100*b, fromB, 100*c, fromC, 100*math.Abs(c-b))
}
