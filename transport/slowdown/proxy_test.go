package slowdown

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// hangGuard bounds a wait that must end, so a broken proxy fails the test
// instead of hanging it; it is no assertion on how long anything takes.
const hangGuard = 10 * time.Second

var openAIStream = []string{
	`data: {"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}` + "\n\n",
	": keep-alive\n\n",
	`data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Hel"}}]}` + "\r\n\r\n",
	`data: {"id":"c1","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}` + "\n\n",
	`data: {"id":"c1","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}` + "\n\n",
	"data: [DONE]\n\n",
}

// seen is what the upstream got from the proxy.
type seen struct {
	method, uri, body, auth, custom, host string
}

// startProxy starts a proxy in front of upstream and closes it at the end.
func startProxy(t *testing.T, upstream string, s Shares) *Proxy {
	t.Helper()
	p, err := Start(upstream, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// The proxy forwards the request as sent (method, path, query, body,
// Authorization) and hands the stream back byte for byte, each event
// flushed as it is released: the upstream sends event k+1 only once the
// client has read event k through the proxy, so a proxy that buffered
// would hang here. Shares zero (the A/A pass-through) and not.
func TestProxyStreamsEventsByteForByte(t *testing.T) {
	for _, shares := range []Shares{{}, {ITL: 0.25, TTFT: 0.1, Throughput: 0.1}} {
		t.Run(shares.String(), func(t *testing.T) {
			got := make(chan seen, 1)
			ack := make(chan struct{})
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				got <- seen{r.Method, r.RequestURI, string(body), r.Header.Get("Authorization"), r.Header.Get("X-Custom"), r.Host}
				w.Header().Set("Content-Type", "text/event-stream")
				w.Header().Set("X-Request-Id", "req-7")
				for _, ev := range openAIStream {
					_, _ = io.WriteString(w, ev)
					w.(http.Flusher).Flush()
					select {
					case <-ack:
					case <-r.Context().Done():
						return
					}
				}
			}))
			defer up.Close()
			p := startProxy(t, up.URL, shares)

			req, _ := http.NewRequest(http.MethodPost, p.URL()+"/v1/chat/completions?x=1", strings.NewReader(`{"stream":true}`))
			req.Header.Set("Authorization", "Bearer sk-secret")
			req.Header.Set("X-Custom", "kept")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if s := <-got; s != (seen{"POST", "/v1/chat/completions?x=1", `{"stream":true}`, "Bearer sk-secret", "kept", strings.TrimPrefix(up.URL, "http://")}) {
				t.Errorf("upstream saw %+v", s)
			}
			if resp.StatusCode != 200 || resp.Header.Get("X-Request-Id") != "req-7" || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Errorf("status %d, headers %v", resp.StatusCode, resp.Header)
			}
			for i, want := range openAIStream {
				ev := readN(t, resp.Body, len(want))
				if ev != want {
					t.Fatalf("event %d: %q, want %q", i, ev, want)
				}
				ack <- struct{}{}
			}
			if rest, err := io.ReadAll(resp.Body); err != nil || len(rest) != 0 {
				t.Errorf("after [DONE]: %q, %v", rest, err)
			}
		})
	}
}

// readN reads exactly n bytes, failing instead of hanging.
func readN(t *testing.T, r io.Reader, n int) string {
	t.Helper()
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b := make([]byte, n)
		_, err := io.ReadFull(r, b)
		done <- result{b, err}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			t.Fatalf("read: %v", res.err)
		}
		return string(res.b)
	case <-time.After(hangGuard):
		t.Fatal("an event was not flushed through the proxy")
		return ""
	}
}

// A non-streamed response (and an error status) passes whole: status,
// headers, Content-Length and body unchanged.
func TestProxyPassesWholeResponsesAndErrorStatuses(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
	}{
		{200, `{"id":"c1","choices":[{"message":{"content":"Hello"}}],"usage":{"completion_tokens":2}}`},
		{429, `{"error":{"message":"rate limited","type":"rate_limit_error"}}`},
		{500, "upstream exploded\n"},
	} {
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(tc.status)
			_, _ = io.WriteString(w, tc.body)
		}))
		p := startProxy(t, up.URL, Shares{TTFT: 0.25, Throughput: 0.25})
		resp, err := http.Post(p.URL()+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != tc.status || string(body) != tc.body ||
			resp.Header.Get("Retry-After") != "3" || resp.ContentLength != int64(len(tc.body)) {
			t.Errorf("status %d (want %d), body %q, %v, headers %v", resp.StatusCode, tc.status, body, err, resp.Header)
		}
		up.Close()
	}
}

// A client that goes away mid-stream makes the proxy close its upstream
// connection, and leaves no handler or upstream reader behind.
func TestProxyClientGoneClosesUpstream(t *testing.T) {
	upstreamGone := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, openAIStream[0])
		w.(http.Flusher).Flush()
		<-r.Context().Done() // never finishes on its own
		close(upstreamGone)
	}))
	defer up.Close()
	p, err := Start(up.URL, Shares{ITL: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.URL()+"/v1/chat/completions", strings.NewReader(`{}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ev := readN(t, resp.Body, len(openAIStream[0])); ev != openAIStream[0] {
		t.Fatalf("first event %q", ev)
	}
	cancel()
	resp.Body.Close()
	select {
	case <-upstreamGone:
	case <-time.After(hangGuard):
		t.Fatal("the upstream request was never closed after the client went away")
	}
	closed := make(chan struct{})
	go func() { _ = p.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(hangGuard):
		t.Fatal("Close hangs: a handler or upstream reader was left behind")
	}
	if n := p.reading.Load(); n != 0 {
		t.Errorf("%d upstream readers still running", n)
	}
}

// An upstream that cannot be reached is a 502 naming the failure.
func TestProxyUnreachableUpstreamIs502(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := startProxy(t, "http://"+addr, Shares{})
	resp, err := http.Post(p.URL()+"/v1/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !bytes.Contains(body, []byte("slowdown proxy: upstream")) {
		t.Errorf("status %d, body %q", resp.StatusCode, body)
	}
}

func TestStartRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		upstream string
		shares   Shares
		want     string
	}{
		{"127.0.0.1:8000", Shares{}, `upstream "127.0.0.1:8000" is not an http:// or https:// base URL`},
		{"ftp://x", Shares{}, "not an http:// or https:// base URL"},
		{"http://127.0.0.1:8000", Shares{ITL: -0.1}, "slowdown: itl must be a finite share >= 0, got -0.1"},
	} {
		if p, err := Start(tc.upstream, tc.shares); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Start(%q, %+v) error %v, want %q", tc.upstream, tc.shares, err, tc.want)
			if p != nil {
				p.Close()
			}
		}
	}
}
