package sim

import (
	"container/list"
	"encoding/json"
	"sync"
	"unicode"
	"unicode/utf8"
)

// PrefixCache is the simulated engine's automatic prefix cache, shaped
// like vLLM's: a prompt is cut into blocks of PrefixBlockTokens tokens
// (words, the sim's tokens), each block named by a hash of its own words
// and of every block before it, so a block can only be reused by a prompt
// that starts with the same tokens. A request's cached tokens are its
// leading blocks already resident; its prefill computes only the rest.
// Resident blocks are kept least recently used first and evicted past
// PrefixCacheBlocks. It is safe for concurrent use.
type PrefixCache struct {
	mu       sync.Mutex
	capacity int
	lru      list.List // of uint64 block hashes, most recently used at the front
	blocks   map[uint64]*list.Element
}

// NewPrefixCache is an empty cache of capacity blocks. A runner that
// starts one server per point gives them all one (Config.SharedPrefixCache),
// so the cache outlives each server as a real server's outlives a point.
func NewPrefixCache(capacity int) *PrefixCache {
	return &PrefixCache{capacity: capacity, blocks: make(map[uint64]*list.Element)}
}

// admit looks a prompt's block hashes up as its prefill starts, returning
// how many leading blocks were resident, and makes every block resident
// (most recently used), evicting the least recently used beyond capacity.
func (c *PrefixCache) admit(hashes []uint64) (hits int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	leading := true
	for _, h := range hashes {
		if e, ok := c.blocks[h]; ok {
			if leading {
				hits++
			}
			c.lru.MoveToFront(e)
			continue
		}
		leading = false
		c.blocks[h] = c.lru.PushFront(h)
		for c.lru.Len() > c.capacity {
			old := c.lru.Back()
			delete(c.blocks, old.Value.(uint64))
			c.lru.Remove(old)
		}
	}
	return hits
}

// blockHasher chains FNV-1a over a prompt's words, closing a block every
// size words; a partial last block is never cached, as in vLLM.
type blockHasher struct {
	size, words int
	h           uint64
	hashes      []uint64
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func newBlockHasher(size int) *blockHasher { return &blockHasher{size: size, h: fnvOffset} }

// text adds the words of one piece of the prompt, in order.
func (b *blockHasher) text(s string) {
	inWord := false
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if unicode.IsSpace(r) {
			if inWord {
				b.endWord()
			}
			inWord = false
		} else {
			inWord = true
			for i := range n {
				b.h = (b.h ^ uint64(s[i])) * fnvPrime
			}
		}
		s = s[n:]
	}
	if inWord {
		b.endWord()
	}
}

// endWord separates words (so "a b" and "ab" differ) and closes a block
// every size words; the next block's hash goes on from this one's.
func (b *blockHasher) endWord() {
	b.h = (b.h ^ ' ') * fnvPrime
	b.words++
	if b.words%b.size == 0 {
		b.hashes = append(b.hashes, b.h)
	}
}

// promptBlocks hashes a request's prompt as its API carries it: the
// system prompt, then message contents (strings or text parts), a
// completions prompt (strings, or token ids as words) or the one text of
// TGI and KServe.
func promptBlocks(a api, w *wireRequest, size int) []uint64 {
	b := newBlockHasher(size)
	switch a {
	case apiMessages:
		b.raw(w.System)
		b.messages(w)
	case apiChat:
		b.messages(w)
	case apiResponses:
		var text string
		if json.Unmarshal(w.Input, &text) == nil {
			b.text(text)
		} else if json.Unmarshal(w.Input, &w.Messages) == nil {
			b.messages(w)
		}
	case apiCompletions:
		b.raw(w.Prompt)
	case apiTGI:
		b.raw(w.Inputs)
	case apiKServe:
		b.raw(w.TextInput)
	}
	return b.hashes
}

func (b *blockHasher) messages(w *wireRequest) {
	for _, m := range w.Messages {
		b.raw(m.Content)
	}
}

// raw adds a JSON value's text: a string, a list of strings, text parts
// or token ids (each id a word), or lists of those.
func (b *blockHasher) raw(v json.RawMessage) {
	if len(v) == 0 {
		return
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			b.text(s)
		}
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(v, &items) == nil {
			for _, item := range items {
				b.raw(item)
			}
		}
	case '{':
		var part struct {
			Text json.RawMessage `json:"text"`
		}
		if json.Unmarshal(v, &part) == nil {
			b.raw(part.Text)
		}
	default: // a token id
		b.text(string(v))
	}
}

// cachedTokens admits a request's prompt to the prefix cache as its
// prefill starts and returns how many of its tokens were resident: whole
// blocks, never more than the prompt the engine kept (an Ollama-style cut
// to ContextTokens drops the front). 0 without a cache and for
// embeddings and rankings.
func (s *Server) cachedTokens(req *genRequest) int {
	if s.cache == nil || req.api.scores() || req.wire == nil {
		return 0
	}
	size := s.cfg.PrefixBlockTokens
	hits := s.cache.admit(promptBlocks(req.api, req.wire, size))
	return min(hits*size, req.promptTokens)
}

// reset empties the cache, as vLLM's POST /reset_prefix_cache does.
func (c *PrefixCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Init()
	clear(c.blocks)
}
