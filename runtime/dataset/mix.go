package dataset

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Mix is a weighted mixture of datasets. Each entry comes from a
// component drawn by weight with a seeded generator, and is tagged with the
// component's name so metrics can be split per component.
type Mix struct {
	Components []Source
	// Names tag the components' entries; empty names become
	// "component<i>".
	Names   []string
	Weights []float64
	Seed    uint64
	// Entries is the number of entries drawn when the caller asks for the
	// natural size.
	Entries int
}

// Validate reports every problem with the mixture.
func (m Mix) Validate() error {
	var errs []error
	if len(m.Components) == 0 {
		errs = append(errs, errors.New("mix: needs at least one dataset"))
	}
	if m.Weights != nil {
		if err := validateChoice(Choice{Values: make([]float64, len(m.Components)), Weights: m.Weights}); err != nil {
			errs = append(errs, fmt.Errorf("mix: %s", strings.TrimPrefix(err.Error(), "choice: ")))
		}
	}
	return errors.Join(errs...)
}

// Build draws n entries (default: Entries, else 100).
func (m Mix) Build(n int) ([]Entry, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if n <= 0 {
		n = m.Entries
	}
	if n <= 0 {
		n = 100
	}
	rng := rand.New(rand.NewPCG(m.Seed, m.Seed^0x2545f4914f6cdd1d))
	picks := make([]int, n)
	counts := make([]int, len(m.Components))
	for i := range picks {
		picks[i] = m.pick(rng)
		counts[picks[i]]++
	}
	pools := make([][]Entry, len(m.Components))
	for c, src := range m.Components {
		if counts[c] == 0 {
			continue
		}
		entries, err := src.Build(counts[c])
		if err != nil {
			return nil, fmt.Errorf("mix component %s: %w", m.name(c), err)
		}
		pools[c] = entries
	}
	out := make([]Entry, n)
	used := make([]int, len(m.Components))
	for i, c := range picks {
		if len(pools[c]) == 0 {
			return nil, fmt.Errorf("mix component %s has no entries", m.name(c))
		}
		e := pools[c][used[c]%len(pools[c])] // sources give n; cycle if one gives fewer
		used[c]++
		e.Component = m.name(c)
		out[i] = e
	}
	return out, nil
}

func (m Mix) pick(rng *rand.Rand) int {
	if m.Weights == nil {
		return rng.IntN(len(m.Components))
	}
	return pickWeighted(rng, m.Weights)
}

// ComponentNames are the names the components' entries are tagged with,
// in order: what per-component metrics and gates are keyed by.
func (m Mix) ComponentNames() []string {
	names := make([]string, len(m.Components))
	for i := range names {
		names[i] = m.name(i)
	}
	return names
}

func (m Mix) name(i int) string {
	if i < len(m.Names) && m.Names[i] != "" {
		return m.Names[i]
	}
	return fmt.Sprintf("component%d", i)
}

func (m Mix) String() string {
	parts := make([]string, len(m.Components))
	for i, c := range m.Components {
		parts[i] = m.name(i) + "=" + c.String()
	}
	w := ""
	if m.Weights != nil {
		ws := make([]string, len(m.Weights))
		for i, x := range m.Weights {
			ws[i] = num(x)
		}
		w = ", weights=[" + strings.Join(ws, ", ") + "]"
	}
	return "mix([" + strings.Join(parts, ", ") + "]" + w + ")"
}

// mixSessions is a mix holding conversations: the weights pick each
// session's kind, and a single-turn component's entries become sessions of
// one turn, so a mix of chat sessions and one-shot prompts runs as one
// load.
type mixSessions struct{ Mix }

// Sessions draws n sessions (default: Entries, else 100), each tagged
// with its component's name.
func (m mixSessions) Sessions(n int) ([]Session, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if n <= 0 {
		n = cmp.Or(m.Entries, 100)
	}
	rng := rand.New(rand.NewPCG(m.Seed, m.Seed^0x2545f4914f6cdd1d))
	picks, counts := make([]int, n), make([]int, len(m.Components))
	for i := range picks {
		picks[i] = m.pick(rng)
		counts[picks[i]]++
	}
	pools := make([][]Session, len(m.Components))
	for c, src := range m.Components {
		if counts[c] == 0 {
			continue
		}
		pool, err := componentSessions(src, counts[c])
		if err != nil {
			return nil, fmt.Errorf("mix component %s: %w", m.name(c), err)
		}
		if len(pool) == 0 {
			return nil, fmt.Errorf("mix component %s has no entries", m.name(c))
		}
		pools[c] = pool
	}
	out, used := make([]Session, n), make([]int, len(m.Components))
	for i, c := range picks {
		out[i] = pools[c][used[c]%len(pools[c])]
		used[c]++
		out[i].Component = m.name(c)
	}
	return out, nil
}

// componentSessions draws n sessions of one component: its own, or its
// entries as one-turn sessions.
func componentSessions(src Source, n int) ([]Session, error) {
	if ss, ok := Sessioned(src); ok {
		return ss.Sessions(n)
	}
	entries, err := src.Build(n)
	if err != nil {
		return nil, err
	}
	sessions := make([]Session, len(entries))
	for i, e := range entries {
		sessions[i] = Session{Turns: []Turn{{Entry: e}}}
	}
	return sessions, nil
}

// Build returns the turns of n sessions as entries.
func (m mixSessions) Build(n int) ([]Entry, error) {
	sessions, err := m.Sessions(n)
	if err != nil {
		return nil, err
	}
	return Flatten(sessions), nil
}
