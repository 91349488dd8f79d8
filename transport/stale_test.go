package transport

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// keepAliveServer answers each request with a complete keep-alive SSE
// response and then, as uvicorn does after its keep-alive timeout, closes
// a connection that stays idle for idle without saying so, whenever its
// read deadline happens to fire. With
// closeUnanswered it instead closes every connection as soon as it has read
// a request: a server fault, not a stale connection.
type keepAliveServer struct {
	addr     string
	received atomic.Int64
}

func startKeepAliveServer(t *testing.T, idle time.Duration, closeUnanswered bool) *keepAliveServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &keepAliveServer{addr: "http://" + ln.Addr().String()}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(conn, idle, closeUnanswered)
		}
	}()
	return s
}

const keepAliveBody = "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n" +
	"data: {\"choices\":[{\"delta\":{\"content\":\" there\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"

func (s *keepAliveServer) serve(conn net.Conn, idle time.Duration, closeUnanswered bool) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	for {
		_ = conn.SetReadDeadline(time.Now().Add(idle))
		req, err := http.ReadRequest(br)
		if err != nil {
			return // idle for too long: close without a word
		}
		s.received.Add(1)
		req.Body.Close()
		if closeUnanswered {
			return
		}
		fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(keepAliveBody), keepAliveBody)
	}
}

// A server that closes idle keep-alive connections at random moments
// races the requests sent on them. The client takes no connection the
// server has visibly closed (TestIdleClosedConnectionIsNotUsed shows that
// without a race); what is left is the instant between the server's
// decision to close and the close reaching the client, where a request is
// written to a connection that is already being closed. That request may
// have reached the server, so it is a reset, never sent again: the server
// receives each request at most once. Open loop with Poisson gaps around
// the idle timeout, so the close races requests on several pooled
// connections.
func TestIdleCloseRaceNeverSendsTwice(t *testing.T) {
	srv := startKeepAliveServer(t, 30*time.Millisecond, false)
	c, _ := newTestClient(t, Config{URL: srv.addr, API: Chat, Stream: true, Timeout: 5 * time.Second})
	const n = 200
	var failed, retried atomic.Int64
	rng := rand.New(rand.NewPCG(1, 2))
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			var rec metrics.Record
			c.Send(context.Background(), []byte(`{}`), &rec)
			if rec.Err != nil {
				failed.Add(1)
				if rec.Err.Class != metrics.ErrReset {
					t.Errorf("failed as %v, want a reset", rec.Err)
				}
			}
			retried.Add(int64(rec.Retries))
			if len(rec.Chunks) > 0 && rec.Chunks[0] < rec.Sent {
				t.Errorf("first chunk at %d before the answered attempt was sent at %d", rec.Chunks[0], rec.Sent)
			}
		})
		time.Sleep(time.Duration(rng.ExpFloat64() * float64(10*time.Millisecond)))
	}
	wg.Wait()
	t.Logf("%d requests: %d lost the race (reset), %d sent again, server received %d", n, failed.Load(), retried.Load(), srv.received.Load())
	if got := srv.received.Load(); got > n {
		t.Errorf("server received %d requests, more than the %d sent: one was sent twice", got, n)
	}
}

// A server that drops every request it reads on a fresh connection is a
// fault, not a stale connection: the request is not retried but recorded
// as a reset, once.
func TestDroppedRequestOnFreshConnectionFails(t *testing.T) {
	srv := startKeepAliveServer(t, time.Second, true)
	c, _ := newTestClient(t, Config{URL: srv.addr, API: Chat, Stream: true, Timeout: 5 * time.Second})
	var rec metrics.Record
	c.Send(context.Background(), []byte(`{}`), &rec)
	if rec.Err == nil || rec.Err.Class != metrics.ErrReset || rec.Retries != 0 {
		t.Errorf("err %v, retries %d; want a reset, not retried", rec.Err, rec.Retries)
	}
	if got := srv.received.Load(); got != 1 {
		t.Errorf("server received %d attempts, want 1", got)
	}
}
