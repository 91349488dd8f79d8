package runtime

import (
	"sync"

	"github.com/llmbench/llmbench/transport/sim"
)

// simPrefixCaches holds one prefix cache per sim:// URL for the life of
// the process. Each run of a point starts its own simulator, but a real
// server's prefix cache outlives a point: a sweep whose points resend
// the same prompts must find them cached, which is the effect
// same_prompts=True and the cache-shift warning are about (SPEC §12).
var simPrefixCaches sync.Map // URL → *sim.PrefixCache

// sharePrefixCache gives cfg the prefix cache every simulator of url
// shares, when cfg has one; separate processes (shards) have their own.
func sharePrefixCache(url string, cfg *sim.Config) {
	if cfg.PrefixCacheBlocks <= 0 {
		return
	}
	c, _ := simPrefixCaches.LoadOrStore(url, sim.NewPrefixCache(cfg.PrefixCacheBlocks))
	cfg.SharedPrefixCache = c.(*sim.PrefixCache)
}
