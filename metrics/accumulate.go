package metrics

import "slices"

// GapExactLimit is how many chunk gaps a point keeps value by value; past
// it the pooled chunk_gap distribution moves to a fixed-size log
// histogram (percentiles within 0.025%, count/min/max/avg/std exact), so
// a run of millions of requests does not hold a value per token.
var GapExactLimit = 1 << 21

// Accumulator reduces records one at a time, as they finish, to the
// Summary that Summarize gives for all of them at once, so a run need not
// keep its records: it holds about 100 bytes per request (the per-request
// values exact percentiles need) and a bounded amount per chunk gap.
// Per-request values are kept in the order records are added, which is
// the order numpy would sum them in: a run adds them as they finish, the
// order they are written to records.parquet and profile_export.json, so a
// summary recomputed from either file is bit for bit the run's. It is not
// safe for concurrent use.
type Accumulator struct {
	opts     Options
	requests []requestValues
	gaps     gapValues
	lags     []float64
	errors   errorGroups
	cache    prefixCacheSums
	sessions sessionValues
	media    mediaValues
	views    viewValues // what the other tools' views need besides
	s        Summary    // Completed, Failed

	good, count               int
	oslSum                    int64
	firstSent, last           int64
	sends                     int
	firstSend, lastSend       int64
	busy, busyFirst, busyLast int64
}

// requestValues is what a completed request with content contributes to
// the per-request distributions.
type requestValues struct {
	ttft, ttst, itl, latency, ttfo   int64
	ttftSched, latencySched          int64
	tpsUser                          float64
	isl, osl                         int32
	turn                             int32 // 1-based turn index, 0 outside a conversation
	session                          int32 // sessionValues' number of the session, -1 outside one
	hasTTST, hasITL, hasTPS, hasTTFO bool
	hasSched                         bool
}

// NewAccumulator starts an empty reduction with the run's options.
func NewAccumulator(opts Options) *Accumulator {
	return &Accumulator{opts: opts, errors: errorGroups{}}
}

// Reserve sizes the per-request lists for the requests a point is
// expected to finish (at most maxReservedRequests) and the pooled chunk
// gaps for the chunks it is expected to stream (at most GapExactLimit,
// what they hold exactly). Without it they grow by append as the records
// arrive, and at the end of a run where thousands of streams finish at
// once every intermediate array is garbage the collector has not yet
// reclaimed: at 10,000 streams of 60 tokens the growth copies were most
// of the process's peak memory (docs/performance.md, "Where the peak is").
func (a *Accumulator) Reserve(requests, chunks int) {
	if n := min(requests, maxReservedRequests); n > 0 {
		a.requests = slices.Grow(a.requests, n-len(a.requests))
		a.views.reqs = slices.Grow(a.views.reqs, n-len(a.views.reqs))
	}
	if n := min(chunks, GapExactLimit); n > 0 && a.gaps.hist == nil {
		a.gaps.exact = slices.Grow(a.gaps.exact, n-len(a.gaps.exact))
	}
}

// maxReservedRequests bounds Reserve's per-request lists (120 bytes a
// request): a run of millions of requests grows past it as before.
const maxReservedRequests = 1 << 20

// Add takes one measured record. It keeps no reference to r.
func (a *Accumulator) Add(r *Record) {
	if r.Warmup {
		a.s.Warmup++
		return
	}
	a.addLoad(r)
	a.sessions.add(r)
	a.views.add(r)
	if r.Retries > 0 {
		a.s.Retried++
	}
	if r.Err != nil {
		a.s.Failed++
		a.errors.add(r.Err)
		return
	}
	a.s.Completed++
	a.cache.add(&r.Usage)
	if len(r.Chunks) == 0 {
		return
	}
	m := r.Metrics()
	if a.count == 0 || r.Sent < a.firstSent {
		a.firstSent = r.Sent
	}
	a.last = max(a.last, r.Chunks[len(r.Chunks)-1])
	a.count++
	a.oslSum += int64(m.OSL)
	if len(a.opts.Goodput) > 0 && meetsAll(a.opts.Goodput, &m) {
		a.good++
	}
	a.media.add(r.Media, len(a.requests))
	a.requests = append(a.requests, requestValues{
		ttft: m.TTFT, ttst: m.TTST, itl: m.ITL, latency: m.Latency, ttfo: m.TTFO,
		tpsUser: m.TPSUser, isl: int32(m.ISL), osl: int32(m.OSL), turn: int32(r.Turn),
		session: a.sessions.sessionOf(r),
		hasTTST: m.HasTTST, hasITL: m.HasITL, hasTPS: m.HasTPSUser, hasTTFO: m.HasTTFO,
		ttftSched: m.TTFTFromSchedule, latencySched: m.LatencyFromSchedule, hasSched: m.HasFromSchedule,
	})
	a.addChunks(r)
}

// addLoad feeds the load metrics, which cover failed requests too (a
// failed request was sent and held a slot all the same). A record whose
// Sent is 0 never left the client and is left out.
func (a *Accumulator) addLoad(r *Record) {
	if r.Sent == 0 {
		return
	}
	if r.Scheduled != 0 {
		a.lags = append(a.lags, float64(r.Sent-r.Scheduled))
	}
	if a.sends == 0 || r.Sent < a.firstSend {
		a.firstSend = r.Sent
	}
	a.lastSend = max(a.lastSend, r.Sent)
	a.sends++
	// Concurrency: a request ends at Done, or at its last chunk when Done
	// was not recorded.
	end := r.Done
	if end == 0 && len(r.Chunks) > 0 {
		end = r.Chunks[len(r.Chunks)-1]
	}
	end = max(end, r.Sent)
	if a.busyFirst == 0 || r.Sent < a.busyFirst {
		a.busyFirst = r.Sent
	}
	a.busyLast = max(a.busyLast, end)
	a.busy += end - r.Sent
}

// Summary reduces what was added so far. It may be called more than once.
func (a *Accumulator) Summary() Summary {
	s := a.s
	a.fillDistributions(&s)
	s.RequestCount = a.count
	if a.count > 0 {
		s.Duration = a.last - a.firstSent
		s.Start, s.End = a.firstSent, a.last
	}
	s.OutputTokenThroughput = perSecond(float64(a.oslSum), s.Duration)
	s.RequestThroughput = perSecond(float64(s.Completed), s.Duration)
	if len(a.opts.Goodput) > 0 {
		goodput := perSecond(float64(a.good), s.Duration)
		s.RequestGoodput = &goodput
	}
	if total := s.Completed + s.Failed; total > 0 {
		s.ErrorRate = float64(s.Failed) / float64(total)
	}
	s.Errors = errorList(a.errors)
	s.PrefixCache = a.cache.share()
	s.ChunkGap = a.gaps.distribution()
	s.ScheduleLag = NewDistribution(a.lags)
	if a.sends >= 2 {
		s.AchievedRequestRate = perSecond(float64(a.sends-1), a.lastSend-a.firstSend)
	}
	if a.busyLast > a.busyFirst {
		s.MeanConcurrency = float64(a.busy) / float64(a.busyLast-a.busyFirst)
	}
	if s.Sessions = a.sessions.summary(s.Duration); s.Sessions != nil {
		s.Sessions.PerTurn = perTurn(a.requests)
		s.Sessions.BySession = a.sessions.bySession(a.requests)
	}
	if s.Completed+s.Failed > 0 {
		s.Views = a.reduceViews(&s)
	}
	return s
}

// fillDistributions builds the per-request distributions.
func (a *Accumulator) fillDistributions(s *Summary) {
	var ttft, ttst, itl, latency, tpsUser, osl, isl, ttfo, ttftSched, latencySched []float64
	var itlSum int64
	for _, v := range a.requests {
		ttft = append(ttft, float64(v.ttft))
		latency = append(latency, float64(v.latency))
		osl = append(osl, float64(v.osl))
		isl = append(isl, float64(v.isl))
		if v.hasTTST {
			ttst = append(ttst, float64(v.ttst))
		}
		if v.hasITL {
			itl = append(itl, float64(v.itl))
			itlSum += v.itl
		}
		if v.hasTPS {
			tpsUser = append(tpsUser, v.tpsUser)
		}
		if v.hasTTFO {
			ttfo = append(ttfo, float64(v.ttfo))
		}
		if v.hasSched {
			ttftSched = append(ttftSched, float64(v.ttftSched))
			latencySched = append(latencySched, float64(v.latencySched))
		}
	}
	s.TimeToFirstToken = NewDistribution(ttft)
	s.TimeToSecondToken = NewDistribution(ttst)
	// GenAI-Perf drops ITL altogether when its values sum to 0, its guard
	// for non-streaming runs where every ITL came out 0.
	if itlSum != 0 {
		s.InterTokenLatency = NewDistribution(itl)
	}
	s.RequestLatency = NewDistribution(latency)
	s.OutputTokenThroughputPerUser = NewDistribution(tpsUser)
	s.OutputSequenceLength = NewDistribution(osl)
	s.InputSequenceLength = NewDistribution(isl)
	s.TimeToFirstOutputToken = NewDistribution(ttfo)
	if a.media.seen {
		latencies := make([]int64, len(a.requests))
		for i, v := range a.requests {
			latencies[i] = v.latency
		}
		s.Media = a.media.summary(latencies)
	}
	s.TTFTFromSchedule = NewDistribution(ttftSched)
	s.RequestLatencyFromSchedule = NewDistribution(latencySched)
}

// gapValues pools chunk gaps: value by value up to GapExactLimit, then in
// a logHistogram.
type gapValues struct {
	exact []int64
	hist  *logHistogram
}

func (g *gapValues) add(v int64) {
	if g.hist != nil {
		g.hist.add(v)
		return
	}
	g.exact = append(g.exact, v)
}

// toHistogram moves the exact gaps to the histogram (Accumulator.addChunks
// calls it before a record would take them past GapExactLimit).
func (g *gapValues) toHistogram() {
	g.hist = &logHistogram{}
	for _, x := range g.exact {
		g.hist.add(x)
	}
	g.exact = nil
}

// distribution sorts the exact gaps first, so the pooled statistics do
// not depend on the order requests finished in. It sorts a copy
// (sortedFloats): the pooled order is what the chunk times are read back
// from, and a summary may be taken again.
func (g *gapValues) distribution() *Distribution {
	if g.hist != nil {
		return g.hist.distribution()
	}
	return sortedDistribution(sortedFloats(g.exact)) // sorted as ints: the order is the same
}
