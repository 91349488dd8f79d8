package metrics

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
