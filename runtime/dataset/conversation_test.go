package dataset

import (
	"testing"
	"time"
)

func TestConversationsDrawSessionsBySeed(t *testing.T) {
	c := Conversations{Turns: Choice{Values: []float64{1, 2, 3}}, Input: Fixed{N: 20}, Output: Fixed{N: 8},
		Think: Normal{Mu: 300, Sigma: 50}, SystemTokens: 12, SharedSystem: true, Count: 50, Seed: 7}
	a, err := c.Sessions(0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.Sessions(0)
	if len(a) != 50 {
		t.Fatalf("%d sessions, want 50", len(a))
	}
	turns := 0
	for i, s := range a {
		if len(s.Turns) < 1 || len(s.Turns) > 3 {
			t.Errorf("session %d has %d turns, want 1 to 3", i, len(s.Turns))
		}
		if s.System == "" || s.System != a[0].System {
			t.Errorf("session %d system prompt %q, want the one shared prompt", i, s.System)
		}
		if s.Turns[0].Think != 0 {
			t.Errorf("session %d: the first turn thinks %v, want 0", i, s.Turns[0].Think)
		}
		for j, turn := range s.Turns {
			if turn.Words != 20 || turn.MaxTokens != 8 || turn.Text == "" {
				t.Errorf("session %d turn %d: %+v, want 20 words asking for 8 tokens", i, j, turn.Entry)
			}
			if j > 0 && (turn.Think <= 0 || turn.Think%time.Millisecond != 0) {
				t.Errorf("session %d turn %d thinks %v, want a positive whole number of ms", i, j, turn.Think)
			}
			if turn.Text != b[i].Turns[j].Text || turn.Think != b[i].Turns[j].Think {
				t.Errorf("session %d turn %d differs between two draws of one seed", i, j)
			}
		}
		turns += len(s.Turns)
	}
	if flat, _ := c.Build(0); len(flat) != turns {
		t.Errorf("Build gave %d entries, want every one of the %d turns", len(flat), turns)
	}
	c.SharedSystem = false
	own, _ := c.Sessions(2)
	if own[0].System == own[1].System {
		t.Error("shared_system_prompt=False gave two sessions the same system prompt")
	}
}

func TestShareGPTMultiTurnKeepsEveryExchange(t *testing.T) {
	s := ShareGPT{Path: writeFile(t, "sg.json", sharegptFile), MultiTurn: true}
	sessions, err := s.Sessions(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 2 || sessions[0].ID != "a" || sessions[1].ID != "d" {
		t.Fatalf("sessions %+v, want a and d", sessions)
	}
	a := sessions[0].Turns
	if len(a) != 2 || a[0].Text != "Tell me a story" || a[0].MaxTokens != 8 || a[1].Text != "more" || a[1].MaxTokens != 2 {
		t.Errorf("session a turns %+v, want the story (8 words) and more (2)", a)
	}
	if got, ok := Sessioned(s); !ok || got == nil {
		t.Error("a multi-turn ShareGPT file is not a session source")
	}
	if _, ok := Sessioned(ShareGPT{Path: s.Path}); ok {
		t.Error("a single-turn ShareGPT file is a session source")
	}
}

func TestMixOfConversationsAndPrompts(t *testing.T) {
	m := Mix{Components: []Source{
		Conversations{Turns: Fixed{N: 3}, Input: Fixed{N: 5}},
		Synthetic{Input: Fixed{N: 9}},
	}, Names: []string{"chat", "oneshot"}, Weights: []float64{1, 1}, Seed: 3}
	ss, ok := Sessioned(m)
	if !ok {
		t.Fatal("a mix holding conversations is not a session source")
	}
	sessions, err := ss.Sessions(40)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, s := range sessions {
		kinds[s.Component]++
		want := map[string]int{"chat": 3, "oneshot": 1}[s.Component]
		if len(s.Turns) != want {
			t.Errorf("a %s session has %d turns, want %d", s.Component, len(s.Turns), want)
		}
	}
	if kinds["chat"] == 0 || kinds["oneshot"] == 0 || kinds["chat"]+kinds["oneshot"] != 40 {
		t.Errorf("kinds %v, want both among 40 sessions", kinds)
	}
}

func TestGroupSessionsFollowsSessionIDsAndDelays(t *testing.T) {
	entries := []Entry{
		{Text: "a1", Session: "a", At: 0, Delay: 100 * time.Millisecond},
		{Text: "b1", Session: "b", At: 50 * time.Millisecond, Delay: 20 * time.Millisecond},
		{Text: "solo", At: 60 * time.Millisecond},
		{Text: "a2", Session: "a", At: 70 * time.Millisecond},
		{Text: "b2", Session: "b"},
	}
	s := GroupSessions(entries)
	if len(s) != 3 || s[0].ID != "a" || s[1].ID != "b" || s[2].ID != "" {
		t.Fatalf("sessions %+v, want a, b and the line without a session", s)
	}
	if len(s[0].Turns) != 2 || s[0].Turns[1].Text != "a2" || s[0].Turns[1].Think != 100*time.Millisecond {
		t.Errorf("session a %+v, want a2 after a1's 100 ms delay", s[0].Turns)
	}
	if s[1].At != 50*time.Millisecond || s[1].Turns[1].Think != 20*time.Millisecond {
		t.Errorf("session b starts at %v thinking %v, want 50ms and 20ms", s[1].At, s[1].Turns[1].Think)
	}
}
