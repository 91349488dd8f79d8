package metrics

import (
	"maps"
	"slices"
)

// SessionSummary is what a conversation point measured per session and
// per turn index, beside the per-request metrics: how long conversations
// took, how many turns they got through, and how each turn's latency and
// prompt length grow with the history it resends.
type SessionSummary struct {
	// Sessions counts the sessions with a measured turn; Completed those
	// whose last turn completed, Failed those a failed turn ended, and Cut
	// those the point's stop condition (or an interrupt) ended before
	// their last turn: Sessions = Completed + Failed + Cut.
	Sessions, Completed, Failed, Cut int
	// Duration is a completed session's first send to its last response,
	// ns, over the completed sessions.
	Duration *Distribution
	// Turns is the completed turns per session, over every session.
	Turns *Distribution
	// Throughput is completed sessions per second over the point's
	// benchmark duration (Summary.Duration).
	Throughput float64
	// PerTurn holds the statistics of each turn index, first turn first.
	PerTurn []TurnStats
	// BySession is every session's own summary, in the order sessions
	// first sent: GenAI-Perf's per-session statistics (the "sessions"
	// block of its JSON), whose throughputs are over the session's own
	// span, its first send to its last response.
	BySession []SessionStats
}

// SessionStats is one session's share of a point.
type SessionStats struct {
	ID      string
	Summary Summary
}

// TurnStats is one turn index's share of a conversation point, over the
// completed requests with content at that index.
type TurnStats struct {
	// Turn is the 1-based turn index.
	Turn     int
	Requests int
	// Times in ns, lengths in tokens, as in Summary.
	TimeToFirstToken     *Distribution
	RequestLatency       *Distribution
	InputSequenceLength  *Distribution
	OutputSequenceLength *Distribution
}

// sessionValues follows the sessions of a point as their turns finish.
type sessionValues struct {
	open map[string]*sessionState
	// index numbers every session by its first measured turn, for
	// requestValues.session; ids lists them in that order.
	index map[string]int32
	ids   []string
	// spans are each session's first send and last content chunk over
	// its completed turns, by number.
	spans     []sessionSpan
	durations []float64
	turns     []float64
	completed int
	failed    int
}

type sessionSpan struct{ first, last int64 }

type sessionState struct {
	first, last int64
	turns       int
}

// add takes one measured turn. A session ends at its last turn or at a
// failed one; what is still open at the end was cut by the stop condition.
func (v *sessionValues) add(r *Record) {
	if r.Session == "" {
		return
	}
	if v.open == nil {
		v.open, v.index = map[string]*sessionState{}, map[string]int32{}
	}
	i, ok := v.index[r.Session]
	if !ok {
		i = int32(len(v.ids))
		v.index[r.Session] = i
		v.ids = append(v.ids, r.Session)
		v.spans = append(v.spans, sessionSpan{})
	}
	if r.Err == nil && len(r.Chunks) > 0 {
		sp := &v.spans[i]
		if sp.last == 0 || r.Sent < sp.first {
			sp.first = r.Sent
		}
		sp.last = max(sp.last, r.Chunks[len(r.Chunks)-1])
	}
	st := v.open[r.Session]
	if st == nil {
		st = &sessionState{first: r.Sent}
		v.open[r.Session] = st
	}
	st.first = min(st.first, r.Sent)
	st.last = max(st.last, r.Done)
	if r.Err != nil {
		v.failed++
		v.close(r.Session, st)
		return
	}
	st.turns++
	if r.LastTurn {
		v.completed++
		v.durations = append(v.durations, float64(st.last-st.first))
		v.close(r.Session, st)
	}
}

func (v *sessionValues) close(id string, st *sessionState) {
	v.turns = append(v.turns, float64(st.turns))
	delete(v.open, id)
}

// summary reduces the sessions; nil when the point had none. Sessions
// still open count as cut, their turns in id order so the result does
// not depend on map order.
func (v *sessionValues) summary(duration int64) *SessionSummary {
	if v.completed+v.failed+len(v.open) == 0 {
		return nil
	}
	turns := slices.Clone(v.turns)
	for _, id := range slices.Sorted(maps.Keys(v.open)) {
		turns = append(turns, float64(v.open[id].turns))
	}
	cut := len(v.open)
	return &SessionSummary{
		Sessions: v.completed + v.failed + cut, Completed: v.completed, Failed: v.failed, Cut: cut,
		Duration: NewDistribution(v.durations), Turns: NewDistribution(turns),
		Throughput: perSecond(float64(v.completed), duration),
	}
}

// sessionOf is the number of r's session, -1 outside a conversation.
func (v *sessionValues) sessionOf(r *Record) int32 {
	if i, ok := v.index[r.Session]; ok && r.Session != "" {
		return i
	}
	return -1
}

// bySession summarises each session's completed requests with the
// point's definitions, over the session's own span.
func (v *sessionValues) bySession(values []requestValues) []SessionStats {
	groups := make([][]requestValues, len(v.ids))
	for _, rv := range values {
		if rv.session >= 0 {
			groups[rv.session] = append(groups[rv.session], rv)
		}
	}
	out := make([]SessionStats, 0, len(groups))
	for i, g := range groups {
		sub := Accumulator{requests: g}
		var s Summary
		sub.fillDistributions(&s)
		s.RequestCount, s.Completed = len(g), len(g)
		var osl int64
		for _, rv := range g {
			osl += int64(rv.osl)
		}
		if sp := v.spans[i]; len(g) > 0 {
			s.Duration, s.Start, s.End = sp.last-sp.first, sp.first, sp.last
		}
		s.RequestThroughput = perSecond(float64(len(g)), s.Duration)
		s.OutputTokenThroughput = perSecond(float64(osl), s.Duration)
		out = append(out, SessionStats{ID: v.ids[i], Summary: s})
	}
	return out
}

// perTurn groups the per-request values by turn index.
func perTurn(values []requestValues) []TurnStats {
	byTurn := map[int][]requestValues{}
	for _, v := range values {
		if v.turn > 0 {
			byTurn[int(v.turn)] = append(byTurn[int(v.turn)], v)
		}
	}
	out := make([]TurnStats, 0, len(byTurn))
	for _, t := range slices.Sorted(maps.Keys(byTurn)) {
		vs := byTurn[t]
		var ttft, latency, isl, osl []float64
		for _, v := range vs {
			ttft = append(ttft, float64(v.ttft))
			latency = append(latency, float64(v.latency))
			isl = append(isl, float64(v.isl))
			osl = append(osl, float64(v.osl))
		}
		out = append(out, TurnStats{Turn: t, Requests: len(vs),
			TimeToFirstToken: NewDistribution(ttft), RequestLatency: NewDistribution(latency),
			InputSequenceLength: NewDistribution(isl), OutputSequenceLength: NewDistribution(osl)})
	}
	return out
}
