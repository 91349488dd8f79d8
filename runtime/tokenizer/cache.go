package tokenizer

import (
	"container/list"
	"hash/maphash"
	"strings"
	"sync"
)

// pieceCache remembers the ids of short pre-tokenized pieces. Natural text
// repeats the same words constantly, so this skips most BPE merging; it is
// sharded so that CountAll's goroutines rarely contend, and a full shard is
// simply emptied, which bounds memory without bookkeeping.
type pieceCache struct {
	seed   maphash.Seed
	shards [pieceShards]pieceShard
}

const (
	pieceShards   = 32
	pieceShardCap = 4096 // entries per shard
	pieceMaxLen   = 64   // longer pieces are rare and not worth keeping
)

type pieceShard struct {
	mu sync.RWMutex
	m  map[string][]int
}

func newPieceCache() *pieceCache {
	return &pieceCache{seed: maphash.MakeSeed()}
}

func (c *pieceCache) shard(s string) *pieceShard {
	return &c.shards[maphash.String(c.seed, s)%pieceShards]
}

func (c *pieceCache) get(s string) ([]int, bool) {
	if len(s) > pieceMaxLen {
		return nil, false
	}
	sh := c.shard(s)
	sh.mu.RLock()
	ids, ok := sh.m[s]
	sh.mu.RUnlock()
	return ids, ok
}

func (c *pieceCache) put(s string, ids []int) {
	if len(s) > pieceMaxLen {
		return
	}
	own := append([]int(nil), ids...)
	key := strings.Clone(s) // s may point into a huge prompt; keep only the piece
	sh := c.shard(s)
	sh.mu.Lock()
	if sh.m == nil || len(sh.m) >= pieceShardCap {
		sh.m = make(map[string][]int, 256)
	}
	sh.m[key] = own
	sh.mu.Unlock()
}

// DefaultCountCacheSize matches GenAI-Perf, which keeps an LRU of 100,000
// prompts when it computes input sequence lengths.
const DefaultCountCacheSize = 100_000

// countCache is a mutex-protected LRU from prompt text to token count.
// Benchmarks send the same prompts many times (fixed datasets, shared
// prefixes, repeats), and a count is all the metrics need. Prompts are
// keyed by a 128-bit hash and their length rather than kept, so a cache of
// long prompts costs about a hundred bytes per entry.
type countCache struct {
	mu    sync.Mutex
	max   int
	seeds [2]maphash.Seed
	order *list.List // front = most recent; values are *countEntry
	items map[countKey]*list.Element
}

type countKey struct {
	h1, h2 uint64
	n      int
}

type countEntry struct {
	key   countKey
	count int
}

func newCountCache(max int) *countCache {
	return &countCache{max: max, seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		order: list.New(), items: make(map[countKey]*list.Element)}
}

func (c *countCache) key(text string) countKey {
	return countKey{maphash.String(c.seeds[0], text), maphash.String(c.seeds[1], text), len(text)}
}

func (c *countCache) get(text string) (int, bool) {
	if c == nil || c.max <= 0 {
		return 0, false
	}
	k := c.key(text)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		return 0, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*countEntry).count, true
}

func (c *countCache) put(text string, count int) {
	if c == nil || c.max <= 0 {
		return
	}
	k := c.key(text)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.items[k] = c.order.PushFront(&countEntry{k, count})
	for c.order.Len() > c.max {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.items, old.Value.(*countEntry).key)
	}
}
