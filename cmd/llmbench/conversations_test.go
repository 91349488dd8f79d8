package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// chatRecorder is an OpenAI chat server that records, per request, how
// many messages it carried, its session header and its last assistant
// message, and streams "reply N" in two chunks.
type chatRecorder struct {
	mu       sync.Mutex
	counts   []int
	sessions []string
	replies  []string // what it streamed, by request
	echoed   []string // the last assistant message each request carried
}

func newChatRecorder(t *testing.T) (*chatRecorder, string) {
	c := &chatRecorder{}
	srv := httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(srv.Close)
	return c, srv.URL
}

func (c *chatRecorder) serve(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Messages []struct{ Role, Content string }
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	echoed := ""
	for _, m := range body.Messages {
		if m.Role == "assistant" {
			echoed = m.Content
		}
	}
	c.mu.Lock()
	n := len(c.counts)
	reply := fmt.Sprintf("reply %d, «naïve» \"quoted\"", n)
	c.counts, c.sessions = append(c.counts, len(body.Messages)), append(c.sessions, r.Header.Get("X-Session-ID"))
	c.replies, c.echoed = append(c.replies, reply), append(c.echoed, echoed)
	c.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	for _, piece := range []string{reply[:8], reply[8:]} {
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"delta": map[string]string{"content": piece}}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
}

// TestRunConversationsResendHistory: two 3-turn sessions, one at a time,
// with and without a system prompt, as `llmbench run` sends them: the
// server sees 1, 3, 5 messages (2, 4, 6 with the system prompt), each
// turn echoes the previous reply byte for byte, the session header names
// the session, and summary.json counts the sessions and turns.
func TestRunConversationsResendHistory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		system int
		counts []int
	}{{0, []int{1, 3, 5}}, {16, []int{2, 4, 6}}} {
		t.Run(fmt.Sprintf("system_prompt_tokens=%d", tc.system), func(t *testing.T) {
			rec, url := newChatRecorder(t)
			dir, file := writeScenario(t, fmt.Sprintf(`
target = endpoint(url = %q, model = "m", session_header = "X-Session-ID")
def main(ctx):
    return experiment(name = "chat", endpoint = target, traffic = concurrency(1), sessions = 2,
        dataset = conversations(turns = 3, input_tokens = 12, output_tokens = 8, system_prompt_tokens = %d))
`, url, tc.system))
			out := filepath.Join(dir, "out")
			r := runCLI(t, dir, "run", file, "--out", out)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if len(rec.counts) != 6 {
				t.Fatalf("server saw %d requests, want 2 sessions × 3 turns", len(rec.counts))
			}
			for i, n := range rec.counts {
				if want := tc.counts[i%3]; n != want {
					t.Errorf("request %d carried %d messages, want %d", i, n, want)
				}
				if i%3 > 0 && rec.echoed[i] != rec.replies[i-1] {
					t.Errorf("request %d resent the assistant turn %q, want %q byte for byte", i, rec.echoed[i], rec.replies[i-1])
				}
				if want := fmt.Sprint(i / 3); rec.sessions[i] != want {
					t.Errorf("request %d has session header %q, want %q", i, rec.sessions[i], want)
				}
			}
			if !strings.Contains(r.stdout, "Sessions: 2 (2 completed, 0 failed, 0 cut by the stop condition)") {
				t.Errorf("console has no sessions line:\n%s", r.stdout)
			}
			var sum struct {
				Experiments []struct {
					Points []struct {
						Sessions struct {
							Completed int
							PerTurn   []struct{ Turn, Requests int } `json:"per_turn"`
						}
					}
				}
			}
			readJSONFile(t, filepath.Join(out, "summary.json"), &sum)
			s := sum.Experiments[0].Points[0].Sessions
			if s.Completed != 2 || len(s.PerTurn) != 3 || s.PerTurn[2].Turn != 3 || s.PerTurn[2].Requests != 2 {
				t.Errorf("summary.json sessions %+v, want 2 completed and 3 turns of 2 requests", s)
			}
		})
	}
}

// TestProfileSessionConcurrency: GenAI-Perf's session flags against the
// simulator write the session_concurrency folder, input_config's sessions
// and the per-session block.
func TestProfileSessionConcurrency(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, dir, "profile", "-m", "m", "-u", "sim://?itl=1ms&ttft=2ms", "--streaming",
		"--session-concurrency", "2", "--num-sessions", "4", "--session-turns-mean", "3",
		"--session-turn-delay-mean", "5", "--synthetic-input-tokens-mean", "20", "--output-tokens-mean", "4")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	run := filepath.Join(dir, "artifacts", "m-openai-chat-session_concurrency2")
	b, err := os.ReadFile(filepath.Join(run, "profile_export_genai_perf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		RequestCount struct{ Avg float64 }      `json:"request_count"`
		ISL          struct{ Min, Max float64 } `json:"input_sequence_length"`
		Sessions     map[string]map[string]struct{ Avg float64 }
		InputConfig  struct {
			Input struct {
				Sessions struct {
					Num   int
					Turns struct{ Mean int }
				}
			}
		} `json:"input_config"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.RequestCount.Avg != 12 || len(doc.Sessions) != 4 {
		t.Errorf("%v requests in %d sessions, want 12 in 4", doc.RequestCount.Avg, len(doc.Sessions))
	}
	// Turn 1 sends 20 tokens; turn 3 resends two prompts and two 4-token answers.
	if doc.ISL.Min != 20 || doc.ISL.Max != 68 {
		t.Errorf("ISL from %v to %v, want 20 (first turn) to 68 (third: 3×20 + 2×4)", doc.ISL.Min, doc.ISL.Max)
	}
	for id, s := range doc.Sessions {
		if s["request_count"].Avg != 3 {
			t.Errorf("session %s: %v requests, want 3", id, s["request_count"].Avg)
		}
	}
	if c := doc.InputConfig.Input.Sessions; c.Num != 4 || c.Turns.Mean != 3 {
		t.Errorf("input_config sessions %+v, want num 4, turns mean 3", c)
	}
}

func TestConversationBadInput(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`experiment(name = "e", endpoint = endpoint(url = "sim://", model = "m", api = "completions"), traffic = concurrency(1),
        dataset = conversations(turns = 2, input_tokens = 10))`, `which need api "chat", "responses" or "messages"`},
		{`experiment(name = "e", endpoint = endpoint(url = "sim://", model = "m"), traffic = users(2, qps = 0),
        dataset = conversations(turns = 2, input_tokens = 10))`, "users: for parameter qps: got 0"},
	} {
		dir, file := writeScenario(t, "def main(ctx):\n    return "+tc.body+"\n")
		r := runCLI(t, dir, "run", file)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, "s.star:2:") {
			t.Errorf("exit %d, stderr %q; want 2 naming s.star:2 and %q", r.code, r.stderr, tc.want)
		}
	}
	r := runCLI(t, t.TempDir(), "profile", "-m", "m", "-u", "sim://", "--session-concurrency", "2", "--concurrency", "4")
	if r.code != 2 || !strings.Contains(r.stderr, "--session-concurrency, --concurrency, --request-rate and --fixed-schedule are mutually exclusive") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestProfilePayloadSessions: --input-file payload:FILE whose lines share
// session_ids runs as conversations under --session-concurrency: the
// server sees a's two turns with 1 then 3 messages, b's single turn, and
// the delay (scaled by --session-delay-ratio) is waited between a's turns.
func TestProfilePayloadSessions(t *testing.T) {
	rec, url := newChatRecorder(t)
	dir := t.TempDir()
	payload := filepath.Join(dir, "trace.jsonl")
	lines := `{"session_id": "a", "text": "first question", "output_length": 4, "delay": 40}
{"session_id": "b", "text": "only question", "output_length": 4}
{"session_id": "a", "text": "second question", "output_length": 4}
`
	if err := os.WriteFile(payload, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, dir, "profile", "-m", "m", "-u", url, "--streaming", "--input-file", "payload:"+payload,
		"--session-concurrency", "1", "--num-sessions", "2", "--session-delay-ratio", "0.5")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if fmt.Sprint(rec.counts) != "[1 3 1]" || rec.echoed[1] != rec.replies[0] {
		t.Errorf("message counts %v (want [1 3 1]: a's two turns, then b), a's second turn resent %q", rec.counts, rec.echoed[1])
	}
	if !strings.Contains(r.stdout, "Sessions: 2 (2 completed") {
		t.Errorf("console has no sessions line:\n%s", r.stdout)
	}
}
