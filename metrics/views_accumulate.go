package metrics

import (
	"iter"
	"slices"
)

// viewValues is what the other tools' views (Views) need beyond the
// per-request values Accumulator keeps: reqs is index-aligned with
// Accumulator.requests (one entry per completed request with content),
// others holds the spans of every other sent request, and chunks counts
// the completed requests' content chunks per millisecond once the pooled
// gaps no longer give their times (vLLM's peak output token throughput;
// see chunkClock). 32 bytes per request, plus the bounded chunk clock;
// the Summary then holds AIPerf's unrounded ITL and per-user throughput
// values (16 bytes per request) as its other distributions do.
type viewValues struct {
	reqs   []viewRequest
	others []span
	chunks chunkClock
	// incomplete counts the requests canceled because the run stopped
	// (GuideLLM's "incomplete"); the other failures are errored.
	incomplete int
	// islAll and oslAll sum the token counts of every sent request
	// (GuideLLM's "All Requests" throughputs).
	islAll, oslAll int64
	// completedSent is the earliest send of a completed request (AIPerf's
	// minimum request timestamp), hasCompleted whether there was one.
	completedSent int64
	hasCompleted  bool
}

// viewRequest is a completed request's send, end of response (Done, or
// its last chunk when Done was not recorded), content chunk count and
// time to first output token (-1 when the reasoning it streamed was never
// followed by an answer).
type viewRequest struct {
	sent, end int64
	chunks    int32
	ttfot     int64
}

// span is a request's time in flight, [start, end].
type span struct{ start, end int64 }

// add takes a record in the order Accumulator.Add takes it, and must be
// called for every record Accumulator.Add is.
func (v *viewValues) add(r *Record) {
	if r.Sent != 0 {
		v.islAll += int64(r.InputTokens)
		v.oslAll += int64(r.OutputTokens)
	}
	end := r.Done
	if end == 0 && len(r.Chunks) > 0 {
		end = r.Chunks[len(r.Chunks)-1]
	}
	end = max(end, r.Sent)
	if r.Err == nil && r.Sent != 0 && (!v.hasCompleted || r.Sent < v.completedSent) {
		v.completedSent, v.hasCompleted = r.Sent, true
	}
	if r.Err != nil || len(r.Chunks) == 0 {
		if r.Err != nil && r.Err.Class == ErrCanceled {
			v.incomplete++
		}
		if r.Sent != 0 {
			v.others = append(v.others, span{r.Sent, end})
		}
		return
	}
	ttfot := r.Chunks[0] - r.Sent
	if r.ReasoningChunks > 0 {
		ttfot = -1
		if r.ReasoningChunks < len(r.Chunks) {
			ttfot = r.Chunks[r.ReasoningChunks] - r.Sent
		}
	}
	v.reqs = append(v.reqs, viewRequest{sent: r.Sent, end: end, chunks: int32(len(r.Chunks)), ttfot: ttfot})
}

// reduceViews reduces what was added; s is the Summary the Accumulator has
// built so far (its distributions, counts and durations).
func (a *Accumulator) reduceViews(s *Summary) *Views {
	return &Views{
		VLLM:     a.vllmView(s),
		GuideLLM: a.guideLLMView(s),
		LLMPerf:  a.llmperfView(s),
		AIPerf:   a.aiperfView(s),
	}
}

// spans lists every sent request's time in flight, completed ones first.
func (a *Accumulator) spans() []span {
	out := make([]span, 0, len(a.views.reqs)+len(a.views.others))
	for _, r := range a.views.reqs {
		out = append(out, span{r.sent, r.end})
	}
	return append(out, a.views.others...)
}

// wallTime is the span from the first send to the last response end of any
// request, failed ones included: the wall time vLLM, LLMPerf and GuideLLM
// divide by, ns.
func (a *Accumulator) wallTime() int64 {
	if a.busyLast <= a.busyFirst {
		return 0
	}
	return a.busyLast - a.busyFirst
}

// chunkClock is how many content chunks arrived in each millisecond, kept
// only once the pooled chunk gaps have moved to their histogram: until
// then every chunk's exact arrival time is read back from the gaps
// (Accumulator.chunkTimes), so a run does not hold each token's time
// twice. Past that point the peak per second is counted over whole
// milliseconds: a chunk within 1 ms of a second's edge may be counted in
// the neighbouring second.
type chunkClock struct {
	perMS map[int64]int64
}

func (c *chunkClock) add(t int64) {
	if c.perMS == nil {
		c.perMS = map[int64]int64{}
	}
	c.perMS[t/1e6]++
}

// chunkTimes yields the exact arrival time of every content chunk of the
// first n completed requests with content, in the order they were added:
// each request's first chunk (its send + TTFT), then each of its pooled
// gaps added on. It reads the gaps in the order Add pooled them, so only
// while they are exact (gapValues keeps that order: its distribution
// sorts a copy).
func (a *Accumulator) chunkTimes(n int) iter.Seq[int64] {
	return func(yield func(int64) bool) {
		gaps := a.gaps.exact
		for i := range n {
			t := a.views.reqs[i].sent + a.requests[i].ttft
			if !yield(t) {
				return
			}
			k := int(a.views.reqs[i].chunks) - 1
			for _, g := range gaps[:k] {
				t += g
				if !yield(t) {
					return
				}
			}
			gaps = gaps[k:]
		}
	}
}

// addChunks pools r's chunk gaps, and counts its chunks' times once the
// gaps are past GapExactLimit. r has been added to requests and
// views.reqs; its gaps are not pooled yet.
func (a *Accumulator) addChunks(r *Record) {
	if a.gaps.hist == nil && len(a.gaps.exact)+r.GapCount() > GapExactLimit {
		// The last chance to read the exact times: fold them, the
		// earlier requests' only, into millisecond counts.
		for t := range a.chunkTimes(len(a.requests) - 1) {
			a.views.chunks.add(t)
		}
		a.gaps.toHistogram()
	}
	if a.gaps.hist != nil {
		for _, t := range r.Chunks {
			a.views.chunks.add(t)
		}
	}
	for g := range r.ChunkGaps() {
		a.gaps.add(g)
	}
}

// peakPerSecond is the most chunks counted in one second-long bucket
// [origin + k s, origin + (k+1) s): vLLM's int(token_time − start) buckets.
func (a *Accumulator) peakPerSecond(origin int64) int64 {
	var seconds secondCounts
	if a.gaps.hist == nil {
		for t := range a.chunkTimes(len(a.requests)) {
			seconds.add(max(t-origin, 0)/1e9, 1)
		}
	}
	for ms, n := range a.views.chunks.perMS {
		seconds.add(max(ms*1e6-origin, 0)/1e9, n)
	}
	return seconds.peak()
}

// secondCounts counts per second from a run's start: in a slice indexed
// by the second (a run's chunks fall in its few thousand seconds; a map
// increment per chunk was most of this view's cost), in a map for a
// second past maxIndexedSecond, which only a clock gone wrong gives.
type secondCounts struct {
	indexed []int64
	far     map[int64]int64
}

// maxIndexedSecond bounds the slice: ten days of seconds, 6.9 MB.
const maxIndexedSecond = 10 * 24 * 3600

func (c *secondCounts) add(second, n int64) {
	if second >= maxIndexedSecond {
		if c.far == nil {
			c.far = map[int64]int64{}
		}
		c.far[second] += n
		return
	}
	if second >= int64(len(c.indexed)) {
		c.indexed = append(c.indexed, make([]int64, second+1-int64(len(c.indexed)))...)
	}
	c.indexed[second] += n
}

func (c *secondCounts) peak() int64 {
	var peak int64
	for _, n := range c.indexed {
		peak = max(peak, n)
	}
	for _, n := range c.far {
		peak = max(peak, n)
	}
	return peak
}

// peakConcurrency is the most spans open at one instant; a span ending
// when another starts does not overlap it (vLLM's half-open intervals,
// departures first).
func peakConcurrency(spans []span) int {
	type event struct {
		t     int64
		delta int
	}
	events := make([]event, 0, 2*len(spans))
	for _, s := range spans {
		events = append(events, event{s.start, 1}, event{s.end, -1})
	}
	slices.SortFunc(events, func(x, y event) int {
		if x.t != y.t {
			if x.t < y.t {
				return -1
			}
			return 1
		}
		return x.delta - y.delta
	})
	cur, peak := 0, 0
	for _, e := range events {
		cur += e.delta
		peak = max(peak, cur)
	}
	return peak
}
