package tokenizer

// symbol is one node of the doubly linked list a word is merged in.
type symbol struct {
	id         int32
	prev, next int32 // -1 at the ends
	dead       bool  // merged into its left neighbour
}

// word is a piece being merged.
type word struct {
	syms []symbol
}

func (w *word) add(id int) {
	n := int32(len(w.syms))
	prev := n - 1
	if n > 0 {
		w.syms[n-1].next = n
	}
	w.syms = append(w.syms, symbol{id: int32(id), prev: prev, next: -1})
}

// candidate is a pending merge in the priority queue: lowest rank first,
// then leftmost position, as in the Rust Merge ordering.
type candidate struct {
	rank  uint32
	pos   int32
	newID int32
}

func (a candidate) less(b candidate) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.pos < b.pos
}

// mergeAll applies merges until none applies. Stale queue entries are
// detected the way the Rust code does it: the pair now at pos must still
// produce the same new id.
func (w *word) mergeAll(merges map[uint64]uint64) {
	if len(w.syms) < 2 {
		return
	}
	q := make(mergeQueue, 0, len(w.syms))
	for i := 0; i+1 < len(w.syms); i++ {
		q.pushPair(merges, w.syms[i].id, w.syms[i+1].id, int32(i))
	}
	for len(q) > 0 {
		top := q.pop()
		cur := &w.syms[top.pos]
		if cur.dead || cur.next < 0 {
			continue
		}
		nextPos := cur.next
		right := w.syms[nextPos]
		v, ok := merges[pairKey(int(cur.id), int(right.id))]
		if !ok || int32(uint32(v)) != top.newID {
			continue
		}
		cur.id = top.newID
		cur.next = right.next
		w.syms[nextPos].dead = true
		if right.next >= 0 {
			w.syms[right.next].prev = top.pos
		}
		if cur.prev >= 0 {
			q.pushPair(merges, w.syms[cur.prev].id, cur.id, cur.prev)
		}
		if cur.next >= 0 {
			q.pushPair(merges, cur.id, w.syms[cur.next].id, top.pos)
		}
	}
}

// mergeQueue is a binary min-heap of candidates, written out by hand because
// container/heap's interface calls dominate on long pieces.
type mergeQueue []candidate

func (q *mergeQueue) pushPair(merges map[uint64]uint64, a, b int32, pos int32) {
	v, ok := merges[pairKey(int(a), int(b))]
	if !ok {
		return
	}
	q.push(candidate{rank: uint32(v >> 32), pos: pos, newID: int32(uint32(v))})
}

func (q *mergeQueue) push(c candidate) {
	h := append(*q, c)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].less(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	*q = h
}

func (q *mergeQueue) pop() candidate {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && h[r].less(h[l]) {
			m = r
		}
		if !h[m].less(h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}
