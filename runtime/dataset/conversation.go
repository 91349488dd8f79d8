package dataset

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Session is one multi-turn conversation (SPEC §4): its turns are sent one
// after another, each with the whole history before it — the system
// prompt, every earlier user prompt and every answer as the server
// streamed it.
type Session struct {
	// ID names the session in records and in the session header; "" lets
	// the runtime number it.
	ID string
	// System is the system prompt ("" none).
	System string
	Turns  []Turn
	// Component names the mix component the session came from.
	Component string
	// At is when a replay starts the session, from the trace's start.
	At time.Duration
}

// Turn is one user turn of a session.
type Turn struct {
	// Entry is the new user prompt and the output length it asks for.
	Entry
	// Think is how long the user waits after the previous turn's answer
	// before sending this one; 0 for the first turn.
	Think time.Duration
}

// SessionSource is a Source whose entries belong to conversations: the
// runtime sends them as sessions, not one by one.
type SessionSource interface {
	Source
	// Sessions returns n sessions, or the source's natural number when
	// n <= 0, cycling in order when it holds fewer.
	Sessions(n int) ([]Session, error)
}

// Conversations generates synthetic multi-turn sessions: a turn count per
// session, and per turn a prompt of a sampled length (token-exact under a
// Tokenizer, like Synthetic), an output length and a think time.
type Conversations struct {
	Turns, Input, Output Dist
	// Think is the think time before every turn after the first, in
	// milliseconds (GenAI-Perf's --session-turn-delay-mean); nil: none.
	Think Dist
	// SystemTokens > 0 gives every session a system prompt of that
	// length: one shared by all sessions when SharedSystem (a prefix a
	// server can cache), else one per session.
	SystemTokens  int
	SharedSystem  bool
	Deterministic bool
	// Count is the number of distinct sessions drawn (GenAI-Perf's
	// --num-sessions); runs cycle through them. 0 means 100.
	Count int
	Seed  uint64
	// Tokenizer, when set, makes every prompt token-exact under it.
	Tokenizer Tokenizer
}

// defaultSessions is the number of distinct sessions when Count is unset,
// GenAI-Perf's default dataset size.
const defaultSessions = 100

// Validate reports every problem with the description.
func (c Conversations) Validate() error {
	var errs []error
	for _, d := range []struct {
		name string
		dist Dist
	}{{"turns", c.Turns}, {"input_tokens", c.Input}, {"output_tokens", c.Output}, {"think_time", c.Think}} {
		if d.dist == nil {
			continue
		}
		if err := ValidateDist(d.dist); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", d.name, err))
		}
	}
	if c.Turns == nil {
		errs = append(errs, errors.New("turns: missing"))
	}
	if c.Input == nil {
		errs = append(errs, errors.New("input_tokens: missing"))
	}
	if c.SystemTokens < 0 {
		errs = append(errs, fmt.Errorf("system_prompt_tokens: got %d, want >= 0", c.SystemTokens))
	}
	if c.Count < 0 {
		errs = append(errs, fmt.Errorf("sessions: got %d, want > 0", c.Count))
	}
	return errors.Join(errs...)
}

// Sessions draws n sessions (Count when n <= 0). Turn counts follow
// GenAI-Perf: round(sample), at least 1; think times round(sample) ms, at
// least 0. The prompts come from one Synthetic draw of every turn, so
// they are token-exact and reproducible by seed.
func (c Conversations) Sessions(n int) ([]Session, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if n <= 0 {
		n = c.Count
	}
	if n <= 0 {
		n = defaultSessions
	}
	rng := rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15))
	sessions := make([]Session, n)
	total := 0
	for i := range sessions {
		k := max(1, int(math.Round(c.Turns.Sample(rng))))
		sessions[i].Turns = make([]Turn, k)
		for t := 1; t < k && c.Think != nil; t++ {
			ms := max(0, math.Round(c.Think.Sample(rng)))
			sessions[i].Turns[t].Think = time.Duration(ms * float64(time.Millisecond))
		}
		total += k
	}
	prompts, err := Synthetic{Input: c.Input, Output: c.Output, Deterministic: c.Deterministic,
		Seed: c.Seed, Tokenizer: c.Tokenizer}.Build(total)
	if err != nil {
		return nil, err
	}
	systems, err := c.systemPrompts(n)
	if err != nil {
		return nil, err
	}
	next := 0
	for i := range sessions {
		for t := range sessions[i].Turns {
			sessions[i].Turns[t].Entry = prompts[next]
			next++
		}
		if len(systems) > 0 {
			sessions[i].System = systems[i%len(systems)]
		}
	}
	return sessions, nil
}

// systemPrompts draws the system prompts: none, one shared, or one per
// session, from a seed of their own so they do not shift the turns.
func (c Conversations) systemPrompts(n int) ([]string, error) {
	if c.SystemTokens <= 0 {
		return nil, nil
	}
	if c.SharedSystem {
		n = 1
	}
	seed := c.Seed ^ 0x5bd1e9955bd1e995
	entries, err := Synthetic{Input: Fixed{N: float64(c.SystemTokens)}, Seed: seed, Tokenizer: c.Tokenizer}.Build(n)
	if err != nil {
		return nil, fmt.Errorf("system prompt: %w", err)
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Text
	}
	return out, nil
}

// Build returns every turn of n sessions as entries, in session order:
// the size and memory checks and inputs.json see every prompt.
func (c Conversations) Build(n int) ([]Entry, error) {
	sessions, err := c.Sessions(n)
	if err != nil {
		return nil, err
	}
	return Flatten(sessions), nil
}

func (c Conversations) String() string {
	out := "None"
	if c.Output != nil {
		out = c.Output.String()
	}
	desc := fmt.Sprintf("conversations(turns=%s, input_tokens=%s, output_tokens=%s", c.Turns, c.Input, out)
	if c.Think != nil {
		desc += fmt.Sprintf(", think_time=%s", c.Think)
	}
	if c.SystemTokens > 0 {
		shared := "False"
		if c.SharedSystem {
			shared = "True"
		}
		desc += fmt.Sprintf(", system_prompt_tokens=%d, shared_system_prompt=%s", c.SystemTokens, shared)
	}
	return desc + ")"
}

// Flatten lists every turn of the sessions as an entry, in order.
func Flatten(sessions []Session) []Entry {
	var entries []Entry
	for _, s := range sessions {
		for _, t := range s.Turns {
			e := t.Entry
			e.Component = s.Component
			entries = append(entries, e)
		}
	}
	return entries
}

// GroupSessions turns a trace's entries into sessions: lines sharing a
// session_id are one session's turns in file order, started at the first
// line's timestamp; a line's delay is the wait after its answer before
// the session's next turn (GenAI-Perf's payload files). A line without a
// session_id is a session of its own.
func GroupSessions(entries []Entry) []Session {
	var sessions []Session
	index := map[string]int{}
	for _, e := range entries {
		i, ok := index[e.Session]
		if !ok || e.Session == "" {
			i = len(sessions)
			sessions = append(sessions, Session{ID: e.Session, At: e.At, Component: e.Component})
			if e.Session != "" {
				index[e.Session] = i
			}
		}
		s := &sessions[i]
		t := Turn{Entry: e}
		if n := len(s.Turns); n > 0 {
			t.Think = s.Turns[n-1].Delay
		}
		s.Turns = append(s.Turns, t)
	}
	return sessions
}

// Sessioned returns src as a source of sessions when it is one: synthetic
// conversations, a multi-turn ShareGPT file, or a mix holding either.
func Sessioned(src Source) (SessionSource, bool) {
	switch s := src.(type) {
	case Conversations:
		return s, true
	case ShareGPT:
		return s, s.MultiTurn
	case Mix:
		for _, c := range s.Components {
			if _, ok := Sessioned(c); ok {
				return mixSessions{s}, true
			}
		}
	}
	return nil, false
}

// cycleSessions repeats sessions in order up to n (n <= 0: as they are).
func cycleSessions(sessions []Session, n int) []Session {
	if n <= 0 || len(sessions) == 0 || len(sessions) >= n {
		return sessions
	}
	out := make([]Session, n)
	for i := range out {
		out[i] = sessions[i%len(sessions)]
	}
	return out
}

// HasSessions reports whether any entry belongs to a named session.
func HasSessions(entries []Entry) bool {
	for _, e := range entries {
		if e.Session != "" {
			return true
		}
	}
	return false
}

// Answer is a stand-in assistant answer of n built-in words, for history a
// run synthesises rather than receives (users()' staggered start).
func Answer(seed uint64, n int) string {
	return words(rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d)), n)
}
