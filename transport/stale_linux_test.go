//go:build linux

package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/llmbench/llmbench/metrics"
)

// idleCloseServer answers every request on a keep-alive connection and,
// on the test's cue, closes the connections that are idle the way a
// server's keep-alive timeout does (uvicorn's, so vLLM's and SGLang's,
// after 5 s). It waits until the client's kernel has taken the close (the
// FIN is acknowledged) before it reports a connection closed, so the next
// request races nothing: what the client does with a connection the
// server has dropped is tested without luck either way.
type idleCloseServer struct {
	addr     string
	received atomic.Int64
	goodbye  string // written before the close: "" or an unasked response
	mu       sync.Mutex
	// open maps each connection being served to a channel closed when its
	// serve returns, however it ends: closed idle, or by the client.
	open map[*net.TCPConn]chan struct{}
	t    *testing.T
}

func startIdleCloseServer(t *testing.T, goodbye string) *idleCloseServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &idleCloseServer{addr: "http://" + ln.Addr().String(), goodbye: goodbye,
		open: map[*net.TCPConn]chan struct{}{}, t: t}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c := conn.(*net.TCPConn)
			done := make(chan struct{})
			s.mu.Lock()
			s.open[c] = done
			s.mu.Unlock()
			go s.serve(c, done)
		}
	}()
	return s
}

func (s *idleCloseServer) serve(conn *net.TCPConn, done chan struct{}) {
	defer func() {
		s.mu.Lock()
		delete(s.open, conn)
		s.mu.Unlock()
		conn.Close()
		close(done)
	}()
	br := bufio.NewReader(conn)
	for {
		req, err := http.ReadRequest(br)
		if errors.Is(err, os.ErrDeadlineExceeded) && br.Buffered() == 0 {
			s.closeIdle(conn)
			return
		}
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		s.received.Add(1)
		fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(keepAliveBody), keepAliveBody)
	}
}

// closeIdle says goodbye, sends a FIN and waits for its ACK (FIN_WAIT2)
// before closing the socket for good.
func (s *idleCloseServer) closeIdle(conn *net.TCPConn) {
	if s.goodbye != "" {
		_, _ = io.WriteString(conn, s.goodbye)
	}
	_ = conn.CloseWrite()
	const finWait2 = 5 // include/net/tcp_states.h
	for i := 0; tcpState(conn) != finWait2; i++ {
		if i == 10000 {
			s.t.Error("the client's kernel never acknowledged the FIN")
			break
		}
		time.Sleep(time.Millisecond)
	}
	_ = conn.Close()
}

// closeAllIdle ends the wait for a request on every open connection (the
// client is sending none) and returns once all of them are closed. It
// waits for each connection's own serve to end, so a connection the
// client closed meanwhile is not waited for as one more idle close (it
// once hung the package's tests until go test's 10-minute timeout).
func (s *idleCloseServer) closeAllIdle() {
	s.mu.Lock()
	var done []chan struct{}
	for c, d := range s.open {
		_ = c.SetReadDeadline(time.Unix(1, 0))
		done = append(done, d)
	}
	s.mu.Unlock()
	for _, d := range done {
		<-d
	}
}

// tcpState is the kernel's TCP state of conn (TCP_INFO's tcpi_state).
func tcpState(conn *net.TCPConn) uint8 {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0
	}
	var info syscall.TCPInfo
	_ = raw.Control(func(fd uintptr) {
		size := uint32(unsafe.Sizeof(info))
		_, _, _ = syscall.Syscall6(syscall.SYS_GETSOCKOPT, fd, syscall.IPPROTO_TCP, syscall.TCP_INFO,
			uintptr(unsafe.Pointer(&info)), uintptr(unsafe.Pointer(&size)), 0)
	})
	return info.State
}

// A keep-alive connection the server closed while it was idle is never
// written to: the client sees the close before it sends and takes another
// connection, so a healthy server that drops idle connections gets every
// request exactly once, none fails and none has to be sent again. Rounds
// of four concurrent requests leave four pooled connections, all closed
// by the server before the next round. With goodbye the server first
// writes a response nobody asked for (a 408, as some servers do on a
// keep-alive timeout); before the probe it was read as the next request's
// answer.
func TestIdleClosedConnectionIsNotUsed(t *testing.T) {
	for _, tc := range []struct{ name, goodbye string }{
		{"FIN", ""},
		{"408 then FIN", "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startIdleCloseServer(t, tc.goodbye)
			c, _ := newTestClient(t, Config{URL: srv.addr, API: Chat, Stream: true})
			const rounds, workers = 5, 4
			var failed, retried atomic.Int64
			for range rounds {
				var wg sync.WaitGroup
				for range workers {
					wg.Go(func() {
						var rec metrics.Record
						c.Send(context.Background(), []byte(`{}`), &rec)
						if rec.Err != nil {
							failed.Add(1)
							t.Logf("failed: %v", rec.Err)
						}
						retried.Add(int64(rec.Retries))
					})
				}
				wg.Wait()
				srv.closeAllIdle()
			}
			const n = rounds * workers
			if failed.Load() != 0 || retried.Load() != 0 {
				t.Errorf("%d of %d requests failed, %d sent again, against a server that only closed idle connections", failed.Load(), n, retried.Load())
			}
			if got := srv.received.Load(); got != n {
				t.Errorf("server received %d requests, want %d", got, n)
			}
		})
	}
}

// The race left after the look before writing: the server closes an idle
// keep-alive connection after the client looked at it and before the
// request arrives. The request reached a closed socket, never the server's
// application (its FIN came first and acknowledged none of it), so it is
// sent again on another connection — counted in Retries — and the server
// gets each request once. beforeWrite makes the server close at exactly
// that instant on every reused connection.
func TestRequestRacingIdleCloseIsResent(t *testing.T) {
	srv := startIdleCloseServer(t, "")
	c, _ := newTestClient(t, Config{URL: srv.addr, API: Chat, Stream: true})
	var raced atomic.Int64
	beforeWrite = func() {
		raced.Add(1)
		srv.closeAllIdle()
	}
	t.Cleanup(func() { beforeWrite = nil })
	const n = 10
	retries := 0
	for range n {
		var rec metrics.Record
		c.Send(context.Background(), []byte(`{}`), &rec)
		if rec.Err != nil {
			t.Errorf("failed: %v", rec.Err)
		}
		retries += rec.Retries
	}
	t.Logf("%d requests, %d raced an idle close, %d sent again, server received %d", n, raced.Load(), retries, srv.received.Load())
	if got := srv.received.Load(); got != n || raced.Load() == 0 || retries != int(raced.Load()) {
		t.Errorf("server received %d of %d requests; %d raced the close, %d were sent again", got, n, raced.Load(), retries)
	}
}
