package engine

import "fmt"

// Shard is this process's part of a run split over Count processes
// (SPEC §10), by exact execution segments in k6's manner: shard Index owns
// the segment [Index/Count, (Index+1)/Count) of every count — concurrency,
// request count, warm-up, sessions, dataset entries — and, of an arrival
// schedule, every Count-th arrival from Index on, so the union of all
// shards' sends is the single-machine schedule. The zero value (Count 0)
// is an unsharded run.
type Shard struct {
	Index, Count int
}

// Sharded reports whether the run is split at all.
func (s Shard) Sharded() bool { return s.Count > 1 }

// String is the --shard form, "2/4".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Share is this shard's part of n whole units: ⌊(i+1)n/N⌋ − ⌊in/N⌋, so
// shares differ by at most one and sum to n over the shards.
func (s Shard) Share(n int) int {
	if !s.Sharded() {
		return n
	}
	return (s.Index+1)*n/s.Count - s.Index*n/s.Count
}

// Owns reports whether the k-th arrival (or session, or user) of the
// whole run is this shard's.
func (s Shard) Owns(k int64) bool {
	return !s.Sharded() || k%int64(s.Count) == int64(s.Index)
}

// Segment is this shard's slice [lo, hi) of n items.
func (s Shard) Segment(n int) (lo, hi int) {
	if !s.Sharded() {
		return 0, n
	}
	return s.Index * n / s.Count, (s.Index + 1) * n / s.Count
}

// MeasuredRequests is how many measured requests this process sends at
// the point: the request count, or this shard's share of it (a closed
// loop's counts are already shared by shardPoint; an open loop walks the
// whole schedule and sends every Count-th arrival).
func (p Point) MeasuredRequests() int {
	if p.Load.Closed() {
		return p.Stop.Requests
	}
	return p.Shard.Share(p.Stop.Requests)
}

// shardRequests is the shard's segment of a closed loop's dataset (the
// whole dataset when the segment would be empty), so shards send
// different prompts as one process would cycle through them; an open loop
// keeps them all, since arrival k sends entry k whoever owns it. base is
// the index of the segment's first entry in the whole dataset, so that a
// record's dataset entry names the same prompt on every shard (and in
// inputs.json, which holds the whole dataset).
func shardRequests(reqs []Request, p Point) (segment []Request, base int) {
	if !p.Shard.Sharded() || !p.Load.Closed() {
		return reqs, 0
	}
	lo, hi := p.Shard.Segment(len(reqs))
	if hi <= lo {
		return reqs, 0
	}
	return reqs[lo:hi], lo
}
