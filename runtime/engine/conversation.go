package engine

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/transport"
)

// Conversation is the workload of a multi-turn point: its sessions and
// how each turn's body is rendered from the history before it.
type Conversation struct {
	Sessions []dataset.Session
	spec     transport.BodySpec
	model    func(i int) string
	// offsets[i] is the index of session i's first turn among the
	// flattened entries, which records name in Entry.
	offsets []int
	seed    uint64
}

// NewConversation prepares the sessions for spec's API (its Model is
// left to model). The model of a session is chosen once, for all its
// turns: model(i) for the i-th session of the dataset.
func NewConversation(spec transport.BodySpec, model func(i int) string, sessions []dataset.Session, seed uint64) *Conversation {
	c := &Conversation{Sessions: sessions, model: model, seed: seed, spec: spec}
	next := 0
	for _, s := range sessions {
		c.offsets = append(c.offsets, next)
		next += len(s.Turns)
	}
	return c
}

// session is the k-th session started, cycling through the dataset.
func (c *Conversation) session(k int64) (*dataset.Session, int) {
	i := int(k % int64(len(c.Sessions)))
	return &c.Sessions[i], i
}

// sessionID names the k-th session started: the dataset's own id (a
// trace's session_id) or its number, with the cycle appended when the
// dataset is gone through again, so no two sessions of a run share one.
func (c *Conversation) sessionID(k int64) string {
	s, _ := c.session(k)
	cycle := k / int64(len(c.Sessions))
	id := s.ID
	if id == "" {
		return strconv.FormatInt(k, 10)
	}
	if cycle > 0 {
		id += "." + strconv.FormatInt(cycle, 10)
	}
	return id
}

// turnRequest renders turn t of the k-th session after history: its body
// and the prompt text token counting sees (every message's content joined
// by " ", as a single-turn chat prompt is counted).
func (c *Conversation) turnRequest(k int64, t int, history []transport.Exchange) (body []byte, text string) {
	s, i := c.session(k)
	turn := &s.Turns[t]
	spec := c.spec
	spec.Model = c.model(i)
	body = spec.Body(transport.Prompt{Text: turn.Text, MaxTokens: turn.MaxTokens, MinTokens: turn.MinTokens,
		System: s.System, History: history})
	parts := make([]string, 0, 2*len(history)+2)
	if s.System != "" {
		parts = append(parts, s.System)
	}
	for _, x := range history {
		parts = append(parts, x.User, x.Assistant)
	}
	return body, strings.Join(append(parts, turn.Text), " ")
}

// virtualHistory is the made-up past of a session that a user joins at
// turn j (users()' staggered start): the dataset's prompts with answers
// synthesised at each turn's output length.
func (c *Conversation) virtualHistory(k int64, j int) []transport.Exchange {
	s, _ := c.session(k)
	history := make([]transport.Exchange, 0, len(s.Turns))
	for t := range j {
		n := s.Turns[t].MaxTokens
		if n <= 0 {
			n = virtualAnswerWords
		}
		history = append(history, transport.Exchange{User: s.Turns[t].Text,
			Assistant: dataset.Answer(c.seed^uint64(k)<<8^uint64(t), n)})
	}
	return history
}

// virtualAnswerWords is the length of a synthesised answer for a turn that
// asks for no output length.
const virtualAnswerWords = 128

// answerText is what the assistant answered, exactly as streamed: the
// output after any reasoning chunks, which are not part of the reply a
// client sends back.
func answerText(rec *metrics.Record) string {
	if n := rec.ReasoningChunks; n > 0 && n <= len(rec.ChunkEnds) {
		return rec.Output[rec.ChunkEnds[n-1]:]
	}
	return rec.Output
}

// RunSessions executes one conversation point: sessions are started by
// the load (closed loop: Concurrency sessions at once, each replaced as
// it ends; open loop: session starts at the rate; replay: each session
// at its timestamp; users: each user's turns paced at the user period),
// and each session sends its turns in order, each after the previous
// answer and the turn's think time. A failed or cancelled turn ends its
// session; the run goes on.
func RunSessions(ctx context.Context, p Point, s Sender, clock Clock, conv *Conversation) *Result {
	return execute(ctx, p, s, clock, func(r *run) {
		c := &converser{run: r, conv: conv}
		if p.Load.MaxConcurrency > 0 {
			c.slots = r.slots()
		}
		switch l := p.Load; {
		case l.Paced():
			c.users()
		case l.Closed():
			c.closedLoop()
		case l.Replay():
			c.replay()
		default:
			c.openLoop()
		}
	})
}

// converser runs the sessions of one point.
type converser struct {
	*run
	conv *Conversation
	// slots caps the turns in flight under max_concurrency; nil without.
	slots   chan struct{}
	started atomic.Int64 // sessions started, warm-up included
	turns   atomic.Int64 // measured turns issued
}

// closedLoop keeps Concurrency sessions active: a worker starts the next
// session the moment its previous one ends.
func (c *converser) closedLoop() {
	start := c.clock.Now()
	for w := range c.p.Load.Concurrency {
		c.wg.Go(func() {
			if !c.sleepUntil(start + int64(rampStart(w, c.p.Load.Concurrency, c.p.Load.RampUp))) {
				return
			}
			for {
				k, ok := c.sessionTicket()
				if !ok {
					return
				}
				c.converse(k, 0, 0, nil)
			}
		})
	}
}

// openLoop starts sessions at the planned instants of the arrival
// process, independently of how the earlier ones are doing.
func (c *converser) openLoop() {
	sched := newSchedule(c.p.Load, c.p.Seed)
	start := c.origin()
	active := c.activeSessions()
	for k := int64(0); ; k++ {
		due := start + int64(sched.next())
		if !c.p.Shard.Owns(k) {
			continue
		}
		if !c.sleepUntil(due) || !c.admit(k) {
			return
		}
		c.start(k, due, active)
	}
}

// replay starts each session of a trace once, at its first line's
// timestamp scaled by the speed.
func (c *converser) replay() {
	start := c.origin()
	active := c.activeSessions()
	for i, s := range c.conv.Sessions {
		k := int64(i)
		if !c.p.Shard.Owns(k) {
			continue
		}
		due := start + int64(float64(s.At)/c.p.Load.ReplaySpeed)
		if !c.sleepUntil(due) || !c.admit(k) {
			return
		}
		c.start(k, due, active)
	}
}

// activeSessions bounds the sessions an open loop or replay without
// max_concurrency has under way to InFlightBound (each holds at most one
// request in flight); nil under a cap, which bounds the turns instead.
func (c *converser) activeSessions() chan struct{} {
	if c.slots != nil {
		return nil
	}
	return c.run.slots()
}

// start runs the k-th session from due in its own goroutine, unless
// InFlightBound sessions are under way: then it is dropped and counted
// (measured sessions only: a warm-up one has no record to miss).
func (c *converser) start(k, due int64, active chan struct{}) {
	if active == nil {
		c.wg.Go(func() { c.converse(k, due, 0, nil) })
		return
	}
	select {
	case active <- struct{}{}:
		c.wg.Go(func() {
			c.converse(k, due, 0, nil)
			<-active
		})
	default:
		if k >= int64(c.p.Warmup) {
			c.dropped.Add(1)
		}
	}
}

// users paces Users users at the user period: user u first sends u/N of
// a period after the start (of the ramp-up, when there is one), so the total rate is steady from the first
// second, and joins its first session at a random turn with a
// synthesised history, so the mix of turn indices is steady too.
func (c *converser) users() {
	n := c.p.Load.Users
	period := int64(c.p.Load.UserPeriod())
	start := c.origin()
	for u := range n {
		if !c.p.Shard.Owns(int64(u)) {
			continue
		}
		first := start + period*int64(u)/int64(n)
		if ramp := c.p.Load.RampUp; ramp > 0 {
			first = start + int64(rampStart(u, n, ramp))
		}
		c.wg.Go(func() { c.user(u, first, period) })
	}
}

// user runs one user's sessions back to back at its pace.
func (c *converser) user(u int, due, period int64) {
	rng := rand.New(rand.NewPCG(c.p.Seed, uint64(u)))
	for first := true; ; first = false {
		k, ok := c.sessionTicket()
		if !ok {
			return
		}
		join := 0
		if s, _ := c.conv.session(k); first {
			join = rng.IntN(len(s.Turns))
		}
		if due, ok = c.converse(k, due, join, &period); !ok {
			return
		}
	}
}

// sessionTicket hands out the next session a closed loop or a user
// starts, numbered over the whole run (a shard takes every Count-th), or
// false when the stop condition says no more sessions start.
func (c *converser) sessionTicket() (int64, bool) {
	k := c.started.Add(1) - 1
	if c.p.Shard.Sharded() {
		k = k*int64(c.p.Shard.Count) + int64(c.p.Shard.Index)
	}
	return k, c.admit(k)
}

// admit reports whether the k-th session of the run may start: warm-up
// sessions always, measured ones until the stop condition. A duration
// starts with the first measured session.
func (c *converser) admit(k int64) bool {
	if c.ctx.Err() != nil || c.p.Halt.Stopped() {
		return false
	}
	w, stop := int64(c.p.Warmup), c.p.Stop
	if k >= w && stop.Duration > 0 {
		c.stopAt.CompareAndSwap(0, c.clock.Now()+int64(stop.Duration))
	}
	switch {
	case k < w:
		return true
	case stop.Sessions > 0:
		return k < w+int64(stop.Sessions)
	case stop.Requests > 0:
		return c.turns.Load() < int64(c.turnLimit())
	}
	return c.measuring()
}

// turnLimit is this shard's share of the point's measured turns.
func (c *converser) turnLimit() int { return c.p.Shard.Share(c.p.Stop.Requests) }

// measuring reports whether a duration-bound point is still measuring.
func (c *converser) measuring() bool {
	at := c.stopAt.Load()
	return at == 0 || c.clock.Now() < at
}

// turnTicket numbers the next measured turn (warm-up turns are -1), or
// returns false when the stop condition ends the session here.
func (c *converser) turnTicket(warm bool) (int64, bool) {
	switch {
	case c.ctx.Err() != nil, !warm && c.p.Halt.Stopped():
		return 0, false
	case warm:
		return -1, true
	case c.p.Stop.Duration > 0 && !c.measuring():
		return 0, false
	}
	id := c.turns.Add(1) - 1
	return id, c.p.Stop.Requests == 0 || id < int64(c.turnLimit())
}

// converse sends the k-th session's turns from turn join on, the first at
// due. Without a pace each later turn is due its think time after the
// previous answer; with one (users) it is due a period after the previous
// send, or as soon as the answer arrives if that is later. It returns when
// the next turn of the user would be due, and false when the session
// ended early (a failed turn, the stop condition, an interrupt).
func (c *converser) converse(k, due int64, join int, pace *int64) (int64, bool) {
	s, i := c.conv.session(k)
	warm := k < int64(c.p.Warmup)
	planned := !c.p.Load.Closed() || pace != nil
	history := c.conv.virtualHistory(k, join)
	id := c.conv.sessionID(k)
	for t := join; t < len(s.Turns); t++ {
		if !c.sleepUntil(due) {
			return 0, false
		}
		n, ok := c.turnTicket(warm)
		if !ok || !c.acquire(c.slots) {
			return 0, false
		}
		rec := metrics.Record{ID: n, Entry: c.conv.offsets[i] + t, Component: s.Component,
			Session: id, Turn: t + 1, LastTurn: t == len(s.Turns)-1}
		if planned {
			rec.Scheduled = due
		}
		body, text := c.conv.turnRequest(k, t, history)
		rec.InputText = text
		if c.conv.spec.Stream {
			rec.ExpectChunks(s.Turns[t].MaxTokens)
		}
		c.p.Progress.sending(1)
		c.s.Send(c.sendCtx, body, &rec)
		c.p.Progress.sending(-1)
		rec.FitChunks()
		c.release()
		c.record(&rec)
		if rec.Err != nil {
			return 0, false
		}
		history = append(history, transport.Exchange{User: s.Turns[t].Text, Assistant: answerText(&rec)})
		switch {
		case pace != nil:
			due = rec.Sent + *pace
		case t+1 < len(s.Turns):
			due = rec.Done + int64(s.Turns[t+1].Think)
		}
	}
	return due, true
}

// release frees the max-concurrency slot a turn held.
func (c *converser) release() {
	if c.slots != nil {
		<-c.slots
	}
}
