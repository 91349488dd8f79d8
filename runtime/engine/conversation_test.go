package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
	"github.com/llmbench/llmbench/runtime/dataset"
	"github.com/llmbench/llmbench/runtime/plan"
	"github.com/llmbench/llmbench/transport"
)

// chatLog is a chat server that logs every request it gets — its
// messages, its session header, when it arrived and when its answer was
// written — and streams a distinct answer per request, in two chunks, with
// characters that must survive the round trip byte for byte.
type chatLog struct {
	mu   sync.Mutex
	reqs []loggedChat
	srv  *httptest.Server
}

type loggedChat struct {
	Messages []struct{ Role, Content string }
	System   string
	Session  string
	Arrived  time.Time
	Answered time.Time
	Answer   string
}

func newChatLog(t *testing.T) *chatLog {
	l := &chatLog{}
	l.srv = httptest.NewServer(http.HandlerFunc(l.serve))
	t.Cleanup(l.srv.Close)
	return l
}

func (l *chatLog) serve(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	var body struct {
		Messages []struct{ Role, Content string }
		Input    []struct{ Role, Content string }
		System   string
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	l.mu.Lock()
	n := len(l.reqs)
	l.reqs = append(l.reqs, loggedChat{})
	l.mu.Unlock()
	pieces := []string{fmt.Sprintf("answer %d: «ünï", n), "côdé»\n\"quoted\" \\ end"}
	w.Header().Set("Content-Type", "text/event-stream")
	api := apiOfPath(r.URL.Path)
	for _, p := range pieces {
		writeDelta(w, api, p)
		w.(http.Flusher).Flush()
	}
	fmt.Fprint(w, streamEnd[api])
	w.(http.Flusher).Flush()
	msgs := body.Messages
	if msgs == nil {
		msgs = body.Input
	}
	l.mu.Lock()
	l.reqs[n] = loggedChat{Messages: msgs, System: body.System, Session: r.Header.Get("X-Session-ID"),
		Arrived: arrived, Answered: time.Now(), Answer: pieces[0] + pieces[1]}
	l.mu.Unlock()
}

func apiOfPath(path string) transport.API {
	for _, api := range []transport.API{transport.Responses, transport.Messages} {
		if path == api.DefaultPath("", true) {
			return api
		}
	}
	return transport.Chat
}

// writeDelta writes one streamed text piece in the API's own event shape.
func writeDelta(w http.ResponseWriter, api transport.API, text string) {
	var ev any
	name := ""
	switch api {
	case transport.Responses:
		name, ev = "response.output_text.delta", map[string]string{"type": "response.output_text.delta", "delta": text}
	case transport.Messages:
		name, ev = "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]string{"type": "text_delta", "text": text}}
	default:
		ev = map[string]any{"choices": []any{map[string]any{"delta": map[string]string{"content": text}}}}
	}
	data, _ := json.Marshal(ev)
	if name != "" {
		fmt.Fprintf(w, "event: %s\n", name)
	}
	fmt.Fprintf(w, "data: %s\n\n", data)
}

var streamEnd = map[transport.API]string{
	transport.Chat: "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
	transport.Responses: "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\"," +
		"\"usage\":{\"input_tokens\":5,\"output_tokens\":2,\"total_tokens\":7}}}\n\n",
	transport.Messages: "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}," +
		"\"usage\":{\"output_tokens\":2}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
}

func (l *chatLog) logged() []loggedChat {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]loggedChat(nil), l.reqs...)
}

// runConversation sends sessions to the logging server through the real
// client and returns the records.
func runConversation(t *testing.T, l *chatLog, e testEndpoint, p Point, sessions []dataset.Session) []metrics.Record {
	t.Helper()
	clock := transport.NewClock()
	client, err := transport.NewClient(transport.Config{URL: l.srv.URL, API: e.API, Stream: true,
		Timeout: 10 * time.Second, SessionHeader: e.SessionHeader, MaxConns: 64}, clock)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	conv := NewConversation(transport.BodySpec{API: e.API, Stream: e.Stream}, func(int) string { return e.Model }, sessions, 1)
	return RunSessions(context.Background(), p, client, clock, conv).Records
}

// testEndpoint is what runConversation needs of an endpoint.
type testEndpoint struct {
	API           transport.API
	Stream        bool
	Model         string
	SessionHeader string
}

// testConversation prepares sessions for chat, all on model "m".
func testConversation(sessions []dataset.Session, seed uint64) *Conversation {
	return NewConversation(transport.BodySpec{API: transport.Chat}, func(int) string { return "m" }, sessions, seed)
}

func threeTurns(system string, think time.Duration) dataset.Session {
	s := dataset.Session{System: system}
	for i := range 3 {
		s.Turns = append(s.Turns, dataset.Turn{Entry: dataset.Entry{Text: fmt.Sprintf("question %d", i+1), MaxTokens: 8}})
		if i > 0 {
			s.Turns[i].Think = think
		}
	}
	return s
}

func TestConversationResendsItsHistory(t *testing.T) {
	for _, tc := range []struct {
		api    transport.API
		system string
		counts []int
	}{
		{transport.Chat, "", []int{1, 3, 5}},
		{transport.Chat, "be brief", []int{2, 4, 6}},
		{transport.Responses, "be brief", []int{2, 4, 6}},
		{transport.Messages, "be brief", []int{1, 3, 5}}, // Messages' system prompt is a field of its own
	} {
		t.Run(fmt.Sprintf("%s/system=%q", tc.api, tc.system), func(t *testing.T) {
			l := newChatLog(t)
			e := testEndpoint{API: tc.api, Stream: true, Model: "m", SessionHeader: "X-Session-ID"}
			recs := runConversation(t, l, e, Point{Load: plan.Load{Concurrency: 1}, Stop: plan.Stop{Sessions: 1}},
				[]dataset.Session{threeTurns(tc.system, 0)})
			got := l.logged()
			if len(got) != 3 || len(recs) != 3 {
				t.Fatalf("server saw %d requests, %d records; want 3 turns", len(got), len(recs))
			}
			for i, r := range got {
				if len(r.Messages) != tc.counts[i] {
					t.Errorf("turn %d sent %d messages, want %d", i+1, len(r.Messages), tc.counts[i])
				}
				assertHistory(t, i, r, got[:i], tc.system, tc.api)
				if r.Session != "0" {
					t.Errorf("turn %d carried session header %q, want \"0\"", i+1, r.Session)
				}
				if rec := recs[i]; rec.Turn != i+1 || rec.Session != "0" || rec.LastTurn != (i == 2) || rec.Err != nil {
					t.Errorf("record %d: turn %d session %q last %v err %v", i, rec.Turn, rec.Session, rec.LastTurn, rec.Err)
				}
			}
		})
	}
}

// assertHistory checks that turn i resent every earlier question and,
// byte for byte, every earlier answer, then asked its own question.
func assertHistory(t *testing.T, i int, r loggedChat, earlier []loggedChat, system string, api transport.API) {
	t.Helper()
	msgs := r.Messages
	if system != "" && api != transport.Messages {
		if msgs[0].Role != "system" || msgs[0].Content != system {
			t.Errorf("turn %d: first message %+v, want the system prompt", i+1, msgs[0])
		}
		msgs = msgs[1:]
	}
	if api == transport.Messages && r.System != system {
		t.Errorf("turn %d: system field %q, want %q", i+1, r.System, system)
	}
	for j, prev := range earlier {
		u, a := msgs[2*j], msgs[2*j+1]
		if u.Role != "user" || u.Content != fmt.Sprintf("question %d", j+1) {
			t.Errorf("turn %d: message %d is %+v, want question %d", i+1, 2*j, u, j+1)
		}
		if a.Role != "assistant" || a.Content != prev.Answer {
			t.Errorf("turn %d: message %d is %+v, want the assistant's answer %q byte for byte", i+1, 2*j+1, a, prev.Answer)
		}
	}
	if last := msgs[len(msgs)-1]; last.Content != fmt.Sprintf("question %d", i+1) {
		t.Errorf("turn %d: last message %+v, want its own question", i+1, last)
	}
}

// TestConversationThinksBetweenTurns: each later turn of a session is
// sent exactly its think time after the previous answer came.
func TestConversationThinksBetweenTurns(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: 7 * time.Millisecond}
		const think = 60 * time.Millisecond
		p := Point{Load: plan.Load{Concurrency: 1}, Stop: plan.Stop{Sessions: 1}}
		conv := testConversation([]dataset.Session{threeTurns("", think)}, 1)
		RunSessions(context.Background(), p, s, clock, conv)
		if got, want := s.sends(), ms(0, 67, 134); !slices.Equal(got, want) {
			t.Errorf("turns sent at %v, want %v (7 ms answers, 60 ms think)", got, want)
		}
	})
}

func TestConversationConcurrencyCountsSessions(t *testing.T) {
	l := newChatLog(t)
	sessions := []dataset.Session{threeTurns("", 0), threeTurns("", 0)}
	recs := runConversation(t, l, testEndpoint{API: transport.Chat, Stream: true, Model: "m"},
		Point{Load: plan.Load{Concurrency: 2}, Stop: plan.Stop{Sessions: 4}, Warmup: 1}, sessions)
	if len(l.logged()) != 15 || len(recs) != 12 {
		t.Fatalf("server saw %d requests and %d were measured, want 15 (5 sessions × 3) and 12 (the warm-up session left out)",
			len(l.logged()), len(recs))
	}
	var acc = metrics.NewAccumulator(metrics.Options{})
	ids := map[string]int{}
	for i := range recs {
		acc.Add(&recs[i])
		ids[recs[i].Session]++
	}
	if len(ids) != 4 {
		t.Errorf("measured sessions %v, want 4 of 3 turns each", ids)
	}
	s := acc.Summary().Sessions
	if s == nil || s.Sessions != 4 || s.Completed != 4 || len(s.PerTurn) != 3 || s.PerTurn[2].Requests != 4 {
		t.Fatalf("session summary %+v, want 4 completed sessions and 3 turn indices of 4 requests", s)
	}
}

func TestConversationStopsAtRequestCountCuttingSessions(t *testing.T) {
	l := newChatLog(t)
	recs := runConversation(t, l, testEndpoint{API: transport.Chat, Stream: true, Model: "m"},
		Point{Load: plan.Load{Concurrency: 1}, Stop: plan.Stop{Requests: 7}}, []dataset.Session{threeTurns("", 0)})
	if len(recs) != 7 {
		t.Fatalf("%d measured turns, want 7", len(recs))
	}
	acc := metrics.NewAccumulator(metrics.Options{})
	for i := range recs {
		acc.Add(&recs[i])
	}
	if s := acc.Summary().Sessions; s.Completed != 2 || s.Cut != 1 || s.Sessions != 3 {
		t.Errorf("sessions %+v, want 2 completed and the third cut after one turn", s)
	}
}

// TestUsersPaceTheirTurns holds users(4, qps=40): each user's next turn is
// sent exactly one period (N/Q = 100 ms) after its previous send, the
// users start a quarter period apart (25 ms), so the 60 turns go out
// every 25 ms: 40 per second exactly.
func TestUsersPaceTheirTurns(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: 3 * time.Millisecond}
		sessions := []dataset.Session{threeTurns("", time.Hour)} // think time is replaced by the pace
		p := Point{Load: plan.Load{Users: 4, Rate: 40}, Stop: plan.Stop{Requests: 60}, Seed: 3}
		conv := testConversation(sessions, 3)
		recs := RunSessions(context.Background(), p, s, clock, conv).Records
		if len(recs) != 60 {
			t.Fatalf("%d records, want 60", len(recs))
		}
		var want []time.Duration
		for k := range 60 {
			want = append(want, time.Duration(k)*25*time.Millisecond+openLoopLead)
		}
		if got := s.sends(); !slices.Equal(got, want) {
			t.Errorf("sent at %v, want every 25 ms from %v", got, openLoopLead)
		}
		for _, r := range recs {
			if r.Sent != r.Scheduled {
				t.Errorf("session %s turn %d sent %v late", r.Session, r.Turn, time.Duration(r.Sent-r.Scheduled))
			}
		}
	})
}

// TestSessionsAtARateStartOnTheSchedule: rate(20, constant) over
// conversations starts session k at exactly k/20 s, and its later turns
// are sent at the previous answer (2 ms) plus the think time (10 ms).
func TestSessionsAtARateStartOnTheSchedule(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: 2 * time.Millisecond}
		sessions := []dataset.Session{threeTurns("", 10*time.Millisecond)}
		p := Point{Load: plan.Load{Rate: 20, Arrival: plan.Constant}, Stop: plan.Stop{Sessions: 4}}
		recs := RunSessions(context.Background(), p, s, clock, testConversation(sessions, 1)).Records
		if len(recs) != 12 {
			t.Fatalf("%d records, want 4 sessions × 3 turns", len(recs))
		}
		var want []time.Duration
		for k := range 4 {
			start := openLoopLead + time.Duration(k)*50*time.Millisecond
			want = append(want, start, start+12*time.Millisecond, start+24*time.Millisecond)
		}
		slices.Sort(want)
		if got := s.sends(); !slices.Equal(got, want) {
			t.Errorf("sent at %v, want %v", got, want)
		}
	})
}

// TestReplayedSessionsKeepTheirTiming: a trace's sessions start at their
// first line's timestamp (scaled by the speed) and think their delays.
func TestReplayedSessionsKeepTheirTiming(t *testing.T) {
	onFakeClock(t, func(clock *fakeClock) {
		s := &clockSender{clock: clock, d: time.Millisecond}
		entries := []dataset.Entry{
			{Text: "a1", Session: "a", At: 0, Delay: 30 * time.Millisecond},
			{Text: "b1", Session: "b", At: 100 * time.Millisecond},
			{Text: "a2", Session: "a"},
		}
		p := Point{Load: plan.Load{ReplaySpeed: 2}}
		recs := RunSessions(context.Background(), p, s, clock,
			testConversation(dataset.GroupSessions(entries), 1)).Records
		if len(recs) != 3 {
			t.Fatalf("%d records, want 3", len(recs))
		}
		// a1 at the lead, a2 its 1 ms answer and 30 ms delay later, b1 at 100 ms / 2.
		if got, want := s.sends(), ms(5, 36, 55); !slices.Equal(got, want) {
			t.Errorf("sent at %v, want %v", got, want)
		}
	})
}
