package transport

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// resetServer reads each request fully and then either answers it with a
// keep-alive response or aborts the connection with a TCP RST (SO_LINGER
// 0): a replica that crashed while working on the request. answer decides
// from the request's position on its connection (0 for the first).
type resetServer struct {
	addr     string
	received atomic.Int64
	resets   atomic.Int64
	// fin closes the connection in the normal way (a FIN) instead of
	// resetting it: a server that read the request and then exited.
	fin bool
}

func startResetServer(t *testing.T, answer func(onConn int) bool, fin ...bool) *resetServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &resetServer{addr: "http://" + ln.Addr().String(), fin: len(fin) > 0 && fin[0]}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(conn.(*net.TCPConn), answer)
		}
	}()
	return s
}

func (s *resetServer) serve(conn *net.TCPConn, answer func(int) bool) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	for i := 0; ; i++ {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		s.received.Add(1)
		if !answer(i) {
			s.resets.Add(1)
			if !s.fin {
				_ = conn.SetLinger(0)
			}
			return
		}
		fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(chatJSON), chatJSON)
	}
}

// sendAll sends n requests from workers goroutines and counts the
// outcomes by class ("completed" for none) and the retries.
func sendAll(t *testing.T, c *Client, n, workers int) (got map[string]int, retries int, msg string) {
	t.Helper()
	var mu sync.Mutex
	got = map[string]int{}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				var rec metrics.Record
				c.Send(context.Background(), []byte(`{}`), &rec)
				mu.Lock()
				retries += rec.Retries
				if rec.Err == nil {
					got[outcome("")]++
				} else {
					got[outcome(rec.Err.Class)]++
					msg = rec.Err.Message
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return got, retries, msg
}

// A request the server read and then answered with a reset reached the
// server: it is a reset error, recorded once and never sent again — not
// on a fresh connection, and not when it went out on a reused one (a POST
// is not idempotent: Go's net/http replays one only when nothing of it was
// written). Before, a reset on a reused keep-alive connection was taken
// for a stale connection and replayed, so the server got more requests
// than asked and the resets were hidden.
func TestResetAfterRequestIsNotRetried(t *testing.T) {
	cases := []struct {
		name   string
		answer func(int) bool
		fin    bool
	}{
		{"every request reset", func(int) bool { return false }, false},
		{"second request on each connection reset", func(i int) bool { return i%2 == 0 }, false},
		{"third request on each connection reset", func(i int) bool { return i%3 != 2 }, false},
		{"second request on each connection closed unanswered", func(i int) bool { return i%2 == 0 }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const n = 40
			srv := startResetServer(t, tc.answer, tc.fin)
			c, _ := newTestClient(t, Config{URL: srv.addr, API: Chat})
			got, retries, msg := sendAll(t, c, n, 4)
			t.Logf("%d requests: %s; %d retries; server received %d, reset %d", n, classCounts(got), retries, srv.received.Load(), srv.resets.Load())
			if srv.received.Load() != n {
				t.Errorf("server received %d requests, want exactly %d: a request that reached it was sent again", srv.received.Load(), n)
			}
			resets := int(srv.resets.Load())
			if resets == 0 {
				t.Error("the server reset no request")
			}
			if got[string(metrics.ErrReset)] != resets || got[outcome("")] != n-resets || retries != 0 || resets > 0 && msg != errClosedUnanswered {
				t.Errorf("recorded %s with %d retries (%q), want %d × reset saying the request went unanswered, %d × completed, no retry", classCounts(got), retries, msg, resets, n-resets)
			}
		})
	}
}

// uploadResetServer answers the first request on each connection and
// resets the second as soon as it has read its headers, before its body:
// a request that never reached the server whole. It counts the requests it
// read to the end.
func startUploadResetServer(t *testing.T) *resetServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &resetServer{addr: "http://" + ln.Addr().String()}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func(conn *net.TCPConn) {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for i := 0; ; i++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if i == 1 {
						s.resets.Add(1)
						_ = conn.SetLinger(0)
						return
					}
					if _, err := io.Copy(io.Discard, req.Body); err != nil {
						return
					}
					s.received.Add(1)
					fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(chatJSON), chatJSON)
				}
			}(conn.(*net.TCPConn))
		}
	}()
	return s
}

// A request whose write fails on a reused keep-alive connection never
// reached the server whole: it is sent again on another connection and
// counted in Retries, and the server reads each request to its end once.
// The 16 MiB body is more than the kernel buffers hold while the server
// reads nothing of it, so the write is still going when the reset comes.
func TestFailedWriteOnReusedConnectionIsResent(t *testing.T) {
	srv := startUploadResetServer(t)
	c, _ := newTestClient(t, Config{URL: srv.addr, API: Chat})
	body := []byte(`{"x":"` + strings.Repeat("z", 16<<20) + `"}`)
	const n = 6
	retries := 0
	for range n {
		var rec metrics.Record
		c.Send(context.Background(), body, &rec)
		if rec.Err != nil {
			t.Errorf("failed: %v", rec.Err)
		}
		retries += rec.Retries
	}
	t.Logf("%d requests, %d sent again, %d cut during the upload, server read %d", n, retries, srv.resets.Load(), srv.received.Load())
	if srv.received.Load() != n || retries != int(srv.resets.Load()) || retries == 0 {
		t.Errorf("server read %d requests whole, %d were cut and %d sent again; want %d read, every cut one sent again", srv.received.Load(), srv.resets.Load(), retries, n)
	}
}
