package sim

import (
	"slices"
	"testing"
)

// TestPrefixCacheLRU: hits are the leading resident blocks only, every
// block becomes resident, and the least recently used goes first.
func TestPrefixCacheLRU(t *testing.T) {
	c := NewPrefixCache(3)
	steps := []struct {
		blocks []uint64
		hits   int
	}{
		{[]uint64{1, 2}, 0},
		{[]uint64{1, 2, 3}, 2},
		{[]uint64{9, 2}, 0}, // 2 is resident but not leading; 9 evicts 1 (least recent)
		{[]uint64{1}, 0},    // 1 was evicted; it now evicts 3
		{[]uint64{9, 2, 1}, 3},
		{[]uint64{3}, 0},
	}
	for i, s := range steps {
		if got := c.admit(s.blocks); got != s.hits {
			t.Errorf("step %d %v: %d hits, want %d", i, s.blocks, got, s.hits)
		}
	}
	if c.lru.Len() != 3 || len(c.blocks) != 3 {
		t.Errorf("%d resident, %d indexed; want 3", c.lru.Len(), len(c.blocks))
	}
}

// TestBlockHashes: a block's hash covers every word before it, whole
// blocks only, and word boundaries count; pieces join as one word stream.
func TestBlockHashes(t *testing.T) {
	hash := func(pieces ...string) []uint64 {
		b := newBlockHasher(2)
		for _, p := range pieces {
			b.text(p)
		}
		return b.hashes
	}
	abcde := hash("a b c d e")
	if len(abcde) != 2 {
		t.Fatalf("5 words in blocks of 2: %d blocks, want 2", len(abcde))
	}
	if got := hash("a b", " c\td\n", "x"); !slices.Equal(got, abcde) {
		t.Errorf("the same words in pieces hash %v, want %v", got, abcde)
	}
	if got := hash("a b x d"); got[0] != abcde[0] || got[1] == abcde[1] {
		t.Errorf("a shared first block and a different second: %v vs %v", got, abcde)
	}
	if got := hash("x b c d"); got[1] == abcde[1] {
		t.Error("a block's hash ignores the blocks before it")
	}
	if got := hash("ab c d"); got[0] == abcde[0] {
		t.Error(`"ab c" and "a b" hash alike`)
	}
}
