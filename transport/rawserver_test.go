package transport

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// script is what a rawServer does with one connection after reading a
// request from it: write any bytes (broken framing, an encoding nobody
// asked for, half an answer) or nothing at all. quit closes when the test
// ends, so a script that stays silent can return.
type script func(c net.Conn, quit <-chan struct{})

// rawServer is an HTTP server on 127.0.0.1 that net/http could not be:
// it reads each request properly and answers with whatever its script
// writes. Every connection serves one request and is closed after it.
type rawServer struct {
	url      string
	received atomic.Int64
}

func startRaw(t *testing.T, s script) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	quit := make(chan struct{})
	t.Cleanup(func() { close(quit); ln.Close() })
	srv := &rawServer{url: "http://" + ln.Addr().String()}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go srv.serve(conn, s, quit)
		}
	}()
	return srv
}

func (srv *rawServer) serve(conn net.Conn, s script, quit <-chan struct{}) {
	defer conn.Close()
	req, err := http.ReadRequest(bufio.NewReader(conn))
	if err != nil {
		return
	}
	_, _ = io.Copy(io.Discard, req.Body)
	srv.received.Add(1)
	s(conn, quit)
}

// send writes raw as one write.
func send(raw string) script {
	return func(c net.Conn, _ <-chan struct{}) { _, _ = io.WriteString(c, raw) }
}

// then runs scripts one after the other on the same connection.
func then(steps ...script) script {
	return func(c net.Conn, quit <-chan struct{}) {
		for _, s := range steps {
			s(c, quit)
		}
	}
}

// silence holds the connection open without a byte until the test ends.
func silence(_ net.Conn, quit <-chan struct{}) { <-quit }

// resetConn aborts the connection with a TCP RST.
func resetConn(c net.Conn, _ <-chan struct{}) {
	_ = c.(*net.TCPConn).SetLinger(0)
	_ = c.Close()
}

// trickle writes raw one byte at a time, gap apart.
func trickle(raw string, gap time.Duration) script {
	return func(c net.Conn, quit <-chan struct{}) {
		for i := range len(raw) {
			select {
			case <-quit:
				return
			case <-time.After(gap):
			}
			if _, err := c.Write([]byte{raw[i]}); err != nil {
				return
			}
		}
	}
}

const sseHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n"

// sse is a 200 event stream whose body runs until the connection closes.
func sse(body string) string { return sseHead + "\r\n" + body }

// gzipSSE is an event stream gzip-compressed, which the client never
// asks for (it sends no Accept-Encoding).
func gzipSSE(body string) string {
	return sseHead + "Content-Encoding: gzip\r\n\r\n" + gzipped(body)
}

// whole is a response with a Content-Length body.
func whole(status int, contentType, body string, headers ...string) string {
	h := ""
	for _, x := range headers {
		h += x + "\r\n"
	}
	return fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n%s\r\n%s",
		status, http.StatusText(status), contentType, len(body), h, body)
}

// chunked is a chunked response with the body framed as given, so a test
// can break the framing.
func chunked(contentType, framed string) string {
	return "HTTP/1.1 200 OK\r\nContent-Type: " + contentType + "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + framed
}

// bareLF frames body as chunks whose size lines and trailers end in a bare
// LF instead of CRLF.
func bareLF(body string) string {
	return fmt.Sprintf("%x\n%s\n0\n\n", len(body), body)
}

func gzipped(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = io.WriteString(w, s)
	_ = w.Close()
	return b.String()
}

// manyEvents is n content events of size bytes of text each.
func manyEvents(n, size int) string {
	var b strings.Builder
	for range n {
		b.WriteString(content(strings.Repeat("y", size)))
	}
	return b.String()
}
