package main

import (
	"path/filepath"
	"testing"
)

// conversationsStar is the scenario of the real-server multi-turn test.
const conversationsStar = "testdata/realserver/conversations.star"

// Three-turn sessions with a system prompt over chat, Responses and
// Messages against Ollama: every session completes, every turn counts its
// whole history (ISL under the real tokenizer grows by the earlier
// question and answer each turn), and the records say which session and
// turn each request was.
func (rs *realServer) testConversations(t *testing.T) {
	star, _ := filepath.Abs(conversationsStar)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	r := runCLIEnv(t, dir, rs.scenarioEnv(), "run", star, "--out", out)
	t.Logf("%s conversations over chat, responses, messages: exit %d\n%s", validationMark, r.code, r.stdout)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
	}
	var sum struct {
		Experiments []struct {
			Name   string
			Points []struct {
				Label    string
				Sessions struct {
					Sessions, Completed int
					PerTurn             []struct {
						Turn, Requests int
						ISL            struct{ Avg, Min float64 }
					} `json:"per_turn"`
				}
			}
		}
	}
	readJSONFile(t, filepath.Join(out, "summary.json"), &sum)
	for _, e := range sum.Experiments {
		p := e.Points[0]
		s := p.Sessions
		if s.Completed != 4 || len(s.PerTurn) != 3 {
			t.Errorf("%s: sessions %+v, want 4 completed of 3 turns", e.Name, s)
			continue
		}
		// Turn 1 sends the 16-token system prompt and a 24-token question;
		// every later turn adds the previous answer (8 tokens asked for)
		// and a new question.
		if isl := s.PerTurn[0].ISL.Avg; isl < 40 || isl > 41 {
			t.Errorf("%s: turn 1 ISL %v, want 40 (16 + 24, joined by a space)", e.Name, isl)
		}
		for i := 1; i < 3; i++ {
			if grow := s.PerTurn[i].ISL.Min - s.PerTurn[i-1].ISL.Avg; grow < 24 {
				t.Errorf("%s: turn %d ISL grew by %v, want at least the 24-token question plus the answer", e.Name, i+1, grow)
			}
		}
		recs, _ := readRecords(t, filepath.Join(out, e.Name, p.Label, "records.parquet"))
		turns := map[int]int{}
		for _, rec := range recs {
			if rec.Session == "" || rec.Err != nil {
				t.Errorf("%s: record %d session %q err %v", e.Name, rec.ID, rec.Session, rec.Err)
			}
			turns[rec.Turn]++
		}
		if turns[1] != 4 || turns[2] != 4 || turns[3] != 4 {
			t.Errorf("%s: records per turn %v, want 4 of each", e.Name, turns)
		}
		t.Logf("%s %s: ISL by turn %.0f, %.0f, %.0f", validationMark, e.Name,
			s.PerTurn[0].ISL.Avg, s.PerTurn[1].ISL.Avg, s.PerTurn[2].ISL.Avg)
	}
}
