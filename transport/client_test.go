package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// step is one write of a scripted server: wait, then send raw bytes.
type step struct {
	wait time.Duration
	raw  string
}

// scripted is an HTTP server that plays a fixed script per request and
// remembers, with its own clock, when each write was flushed. It is the
// "real server with a known timing schedule" the client is checked against.
type scripted struct {
	srv     *httptest.Server
	conns   atomic.Int64
	mu      sync.Mutex
	flushed [][]int64 // per request: received time, then each write's flush time
	bodies  []string
	headers []http.Header
}

func newScripted(t *testing.T, status int, script func(w http.ResponseWriter) []step) *scripted {
	t.Helper()
	s := &scripted{}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []int64{time.Now().UnixNano()}
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		steps := script(w)
		if status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
		}
		for _, st := range steps {
			select {
			case <-time.After(st.wait):
			case <-r.Context().Done():
				return // the client gave up; do not hold the test server open
			}
			if st.raw == "<reset>" {
				panic(http.ErrAbortHandler) // cut the connection mid-body
			}
			_, _ = io.WriteString(w, st.raw)
			w.(http.Flusher).Flush()
			got = append(got, time.Now().UnixNano())
		}
		s.mu.Lock()
		s.flushed = append(s.flushed, got)
		s.bodies = append(s.bodies, string(body))
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
	}))
	s.srv.Config.ConnState = func(_ net.Conn, cs http.ConnState) {
		if cs == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.srv.Config.ErrorLog = nil
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

func chatChunk(delta string) string {
	return `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n"
}

func content(s string) string { return chatChunk(fmt.Sprintf(`{"content":%q}`, s)) }

const (
	roleOnly  = `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}` + "\n\n"
	finish    = `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}` + "\n\n"
	usageOnly = `data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":5,"total_tokens":12}}` + "\n\n"
	doneEvent = "data: [DONE]\n\n"
)

func newTestClient(t *testing.T, cfg Config) (*Client, *Clock) {
	t.Helper()
	if cfg.API == "" {
		cfg.API = Chat
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	clock := NewClock()
	c, err := NewClient(cfg, clock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, clock
}

var timedScript = func(http.ResponseWriter) []step {
	return []step{
		{0, roleOnly}, // must never count as the first token
		{30 * time.Millisecond, content("Hello")},
		{10 * time.Millisecond, content(" wor")},
		{10 * time.Millisecond, content("ld")},
		{10 * time.Millisecond, content(",")},
		{10 * time.Millisecond, content(" friend")},
		{5 * time.Millisecond, finish},
		{0, usageOnly},
		{0, doneEvent},
	}
}

// The client's TTFT, ITL and request latency must agree with the server's
// own timestamps within 1 ms on average, and the role-only first chunk
// must never be taken as the first token. The server sees TTFT from when it
// received the request, the client from when it sent it, so the cold first
// request (which also dials) is left out. On a machine shared with other
// test processes a burst of CPU starvation can delay one side by
// milliseconds, so up to three rounds are measured; a client that is
// really off (buffering, late stamping) fails all three.
func TestClientTimingMatchesServerSchedule(t *testing.T) {
	srv := newScripted(t, 0, timedScript)
	c, _ := newTestClient(t, Config{URL: srv.srv.URL, Stream: true})
	for round := 1; round <= 3; round++ {
		gaps := measureTimingRound(t, c, srv)
		t.Logf("round %d: mean |client − server|: ttft %.3f ms, itl %.3f ms, latency %.3f ms, chunk arrival %.3f ms",
			round, gaps.ttft, gaps.itl, gaps.latency, gaps.chunk)
		if gaps.ttft < 1 && gaps.itl < 1 && gaps.latency < 1 && gaps.chunk < 1 {
			break
		}
		if round == 3 {
			t.Errorf("mean disagreement with the server over 1 ms in every round: %+v", gaps)
		}
	}
	if got := srv.conns.Load(); got != 1 {
		t.Errorf("%d connections opened for sequential requests, want 1 (bodies drained to EOF)", got)
	}
}

type timingGaps struct{ ttft, itl, latency, chunk float64 } // ms

// measureTimingRound sends 6 requests and compares the last 5 with the
// server's flush times: [received, role, 5 content, finish, usage, done].
func measureTimingRound(t *testing.T, c *Client, srv *scripted) timingGaps {
	t.Helper()
	const n = 6
	srv.mu.Lock()
	srv.flushed = nil
	srv.mu.Unlock()
	recs := make([]metrics.Record, n)
	for i := range recs {
		c.Send(context.Background(), []byte(`{}`), &recs[i])
	}
	var g timingGaps
	for i, rec := range recs {
		if rec.Err != nil {
			t.Fatalf("request %d failed: %+v", i, rec.Err)
		}
		if rec.Output != "Hello world, friend" || len(rec.Chunks) != 5 {
			t.Fatalf("request %d: output %q in %d chunks, want 5 content chunks", i, rec.Output, len(rec.Chunks))
		}
		if !rec.Usage.Reported || rec.Usage.PromptTokens != 7 || rec.Usage.CompletionTokens != 5 {
			t.Errorf("usage = %+v", rec.Usage)
		}
		if i == 0 {
			continue
		}
		server := srv.flushed[i]
		g.ttft += absNs((rec.Chunks[0] - rec.Sent) - (server[2] - server[0]))
		g.latency += absNs((rec.Chunks[4] - rec.Sent) - (server[6] - server[0]))
		g.itl += absNs((rec.Chunks[4]-rec.Chunks[0])/4 - (server[6]-server[2])/4)
		for k := range rec.Chunks {
			g.chunk += absNs(rec.Chunks[k] - server[2+k])
		}
	}
	ms := float64(time.Millisecond)
	return timingGaps{g.ttft / (n - 1) / ms, g.itl / (n - 1) / ms, g.latency / (n - 1) / ms, g.chunk / (5 * (n - 1)) / ms}
}

func absNs(d int64) float64 {
	if d < 0 {
		d = -d
	}
	return float64(d)
}

func TestClientFaultsAreRecorded(t *testing.T) {
	cases := []struct {
		name   string
		status int
		steps  []step
		idle   time.Duration
		class  metrics.ErrorClass
		msg    string
	}{
		{"http 500", 500, []step{{0, `{"error":{"message":"engine died","type":"internal"}}`}}, 0, metrics.ErrHTTP, "engine died"},
		{"http 429 text", 429, []step{{0, "slow down"}}, 0, metrics.ErrHTTP, "slow down"},
		{"reset mid-stream", 0, []step{{0, roleOnly}, {0, content("a")}, {5 * time.Millisecond, "<reset>"}}, 0, metrics.ErrReset, ""},
		{"malformed event", 0, []step{{0, content("a")}, {0, "data: {\"choices\":[{\"delta\n\n"}}, 0, metrics.ErrMalformed, "not valid JSON"},
		{"event error", 0, []step{{0, content("a")}, {0, "event: error\ndata: {\"error\":{\"message\":\"oom\"}}\n\n"}}, 0, metrics.ErrServer, "oom"},
		{"error object", 0, []step{{0, "data: {\"error\":{\"message\":\"bad\"}}\n\n"}}, 0, metrics.ErrServer, "bad"},
		{"idle stall", 0, []step{{0, content("a")}, {2 * time.Second, content("b")}}, 100 * time.Millisecond, metrics.ErrTimeout, "idle"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newScripted(t, tc.status, func(http.ResponseWriter) []step { return tc.steps })
			c, _ := newTestClient(t, Config{URL: srv.srv.URL, Stream: true, IdleTimeout: tc.idle})
			var rec metrics.Record
			c.Send(context.Background(), []byte(`{}`), &rec)
			if rec.Err == nil || rec.Err.Class != tc.class {
				t.Fatalf("err = %+v, want class %s", rec.Err, tc.class)
			}
			if tc.status != 0 && rec.Err.Status != tc.status {
				t.Errorf("status = %d, want %d", rec.Err.Status, tc.status)
			}
			if !strings.Contains(rec.Err.Message, tc.msg) {
				t.Errorf("message %q does not contain %q", rec.Err.Message, tc.msg)
			}
		})
	}
}

func TestClientTotalTimeout(t *testing.T) {
	srv := newScripted(t, 0, func(http.ResponseWriter) []step {
		return []step{{0, content("a")}, {time.Second, content("b")}}
	})
	c, _ := newTestClient(t, Config{URL: srv.srv.URL, Stream: true, Timeout: 150 * time.Millisecond})
	var rec metrics.Record
	c.Send(context.Background(), []byte(`{}`), &rec)
	if rec.Err == nil || rec.Err.Class != metrics.ErrTimeout {
		t.Fatalf("err = %+v, want a timeout", rec.Err)
	}
}

func TestClientConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, _ := newTestClient(t, Config{URL: "http://" + addr, Stream: true})
	var rec metrics.Record
	c.Send(context.Background(), []byte(`{}`), &rec)
	if rec.Err == nil || rec.Err.Class != metrics.ErrConnect {
		t.Fatalf("err = %+v, want connect", rec.Err)
	}
}

func TestClientCancelInterruptsStream(t *testing.T) {
	srv := newScripted(t, 0, func(http.ResponseWriter) []step {
		return []step{{0, content("a")}, {5 * time.Second, content("b")}}
	})
	c, _ := newTestClient(t, Config{URL: srv.srv.URL, Stream: true})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	var rec metrics.Record
	c.Send(ctx, []byte(`{}`), &rec)
	if rec.Err == nil || rec.Err.Class != metrics.ErrCanceled {
		t.Fatalf("err = %+v, want canceled", rec.Err)
	}
}

func TestClientStreamShapes(t *testing.T) {
	completion := func(text string) string {
		return `data: {"id":"x","object":"text_completion","choices":[{"index":0,"text":` + fmt.Sprintf("%q", text) + `}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}` + "\n\n"
	}
	cases := []struct {
		name      string
		api       API
		steps     []step
		output    string
		chunks    int
		reasoning int
		usage     bool
	}{
		{"missing DONE", Chat, []step{{0, roleOnly}, {0, content("a")}, {0, content("b")}, {0, finish}}, "ab", 2, 0, false},
		{"completions with zero usage", Completions, []step{{0, completion("x")}, {0, completion("y")}, {0, doneEvent}}, "xy", 2, 0, false},
		{"reasoning then answer", Chat, []step{
			{0, chatChunk(`{"reasoning_content":"think"}`)}, {0, chatChunk(`{"reasoning_content":"ing"}`)},
			{0, content("42")}, {0, doneEvent}}, "thinking42", 3, 2, false},
		{"escaped text", Chat, []step{{0, content("line\n\"q\" ✓")}, {0, doneEvent}}, "line\n\"q\" ✓", 1, 0, false},
		{"usage chunk", Chat, []step{{0, content("a")}, {0, usageOnly}, {0, doneEvent}}, "a", 1, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newScripted(t, 0, func(http.ResponseWriter) []step { return tc.steps })
			c, _ := newTestClient(t, Config{URL: srv.srv.URL, API: tc.api, Stream: true})
			var rec metrics.Record
			c.Send(context.Background(), []byte(`{}`), &rec)
			if rec.Err != nil {
				t.Fatalf("failed: %+v", rec.Err)
			}
			if rec.Output != tc.output || len(rec.Chunks) != tc.chunks || rec.ReasoningChunks != tc.reasoning {
				t.Errorf("output %q, %d chunks, %d reasoning; want %q, %d, %d",
					rec.Output, len(rec.Chunks), rec.ReasoningChunks, tc.output, tc.chunks, tc.reasoning)
			}
			if rec.Usage.Reported != tc.usage {
				t.Errorf("usage reported = %v, want %v", rec.Usage.Reported, tc.usage)
			}
			if int(rec.ChunkEnds[len(rec.ChunkEnds)-1]) != len(rec.Output) {
				t.Errorf("chunk ends %v do not cover output of %d bytes", rec.ChunkEnds, len(rec.Output))
			}
		})
	}
}

func TestClientNonStreaming(t *testing.T) {
	srv := newScripted(t, 0, func(w http.ResponseWriter) []step {
		w.Header().Set("Content-Type", "application/json")
		return []step{{20 * time.Millisecond, `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi there"}}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`}}
	})
	c, _ := newTestClient(t, Config{URL: srv.srv.URL})
	var rec metrics.Record
	c.Send(context.Background(), []byte(`{}`), &rec)
	if rec.Err != nil || rec.Output != "hi there" || len(rec.Chunks) != 1 || rec.Chunks[0] != rec.Done {
		t.Fatalf("rec = %+v", rec)
	}
	if rec.Usage.CompletionTokens != 2 {
		t.Errorf("usage = %+v", rec.Usage)
	}
}

func TestClientSendsHeadersAndBody(t *testing.T) {
	srv := newScripted(t, 0, func(http.ResponseWriter) []step { return []step{{0, content("a")}, {0, doneEvent}} })
	c, _ := newTestClient(t, Config{URL: srv.srv.URL + "/", Stream: true,
		Headers: []Header{{"Authorization", "Bearer secret"}, {"X-Team", "perf"}}})
	spec := BodySpec{API: Chat, Model: "m/x", Stream: true, Extra: []Field{
		{"ignore_eos", json.RawMessage("true")}, {"max_tokens", json.RawMessage("9")}}}
	var rec metrics.Record
	c.Send(context.Background(), spec.Body(Prompt{Text: "a \"b\"", MaxTokens: 5}), &rec)
	if rec.Err != nil {
		t.Fatal(rec.Err)
	}
	want := `{"messages":[{"role":"user","content":"a \"b\""}],"model":"m/x","stream":true,"stream_options":{"include_usage":true},"ignore_eos":true,"max_tokens":9}`
	if srv.bodies[0] != want {
		t.Errorf("body\n got %s\nwant %s", srv.bodies[0], want)
	}
	if h := srv.headers[0]; h.Get("Authorization") != "Bearer secret" || h.Get("X-Team") != "perf" {
		t.Errorf("headers = %v", h)
	}
	if c.Target() != srv.srv.URL+"/v1/chat/completions" {
		t.Errorf("target = %s", c.Target())
	}
}

// TestClientCancelEndsWaitForHeaders: a request the server read and never
// answers ends as canceled the moment its context is, not at its timeout
// (a minute here, the idle timeout's default): an interrupted run must not
// leave requests waiting for headers behind it.
func TestClientCancelEndsWaitForHeaders(t *testing.T) {
	srv := startRaw(t, silence)
	c, _ := newTestClient(t, Config{URL: srv.url, Timeout: time.Minute, IdleTimeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *metrics.Record)
	go func() {
		var rec metrics.Record
		c.Send(ctx, []byte(`{}`), &rec)
		done <- &rec
	}()
	for srv.received.Load() == 0 { // the server has read the whole request
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case rec := <-done:
		if rec.Err == nil || rec.Err.Class != metrics.ErrCanceled {
			t.Fatalf("err = %+v, want canceled", rec.Err)
		}
	case <-time.After(20 * time.Second): // a hang detector, far below the minute
		t.Fatal("a request waiting for headers outlived its cancelled context")
	}
}
