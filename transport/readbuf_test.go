package transport

import (
	"bytes"
	"errors"
	"io"
	"net"
	"runtime"
	"testing"
	"time"
)

// TestBodyOverSocketReadsWhatWasSent reads a chunked body over a real TCP
// connection through the buffer-less wait (watchedConn.fill): the server
// writes it in pieces that split chunk-size lines, CRLFs and payload, with
// pauses between some, so reads find the socket empty — the buffer given
// back — and find a partial line buffered — the buffer kept. Whatever the
// interleaving, the payload handed out is the payload sent, and the body
// ends cleanly with the arrival of every view stamped.
func TestBodyOverSocketReadsWhatWasSent(t *testing.T) {
	payload := bytes.Repeat([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"), 60)
	chunked := append(chunks(payload, 53), "0\r\n\r\n"...)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		for i, rest := 0, chunked; len(rest) > 0; i++ {
			k := min(len(rest), []int{1, 3, 70, 2, 400, 5}[i%6])
			if _, err := c.Write(rest[:k]); err != nil {
				return
			}
			rest = rest[k:]
			if i%3 == 0 {
				// Only shapes the interleaving (without it the give-back path
				// ran in 3 of 5 runs); nothing asserted depends on it.
				time.Sleep(200 * time.Microsecond)
			}
		}
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	clock := NewClock()
	w := &watchedConn{Conn: conn, clock: clock, onClose: func(*watchedConn) {}}
	w.attachSocket()
	defer w.Close()
	b := &connBody{conn: w, watched: w, clock: clock, release: func(bool) {}, framing: byChunks}
	b.in.reset(w, nil)
	if b.in.waiter == nil {
		t.Fatal("a plain TCP connection's body does not wait without its buffer")
	}
	var got []byte
	for {
		v, at, err := b.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("after %d bytes: %v", len(got), err)
		}
		if at == 0 {
			t.Fatal("a view without its arrival")
		}
		got = append(got, v...)
	}
	if !bytes.Equal(got, payload) {
		t.Fatalf("read %d bytes, not the %d sent", len(got), len(payload))
	}
	if w.received != int64(len(chunked)) {
		t.Errorf("counted %d bytes received, sent %d", w.received, len(chunked))
	}
}

// TestFillWaitCountsFromTheLastArrival: while a body is read, the idle
// watchdog's wait counts from the arrival of the bytes the last read
// brought (no clock read of its own); after a new request it counts from
// the read's start.
func TestFillWaitCountsFromTheLastArrival(t *testing.T) {
	client, server := socketPair(t)
	clock := NewClock()
	watch := &watchdog{idle: time.Hour, clock: clock, conns: map[*watchedConn]struct{}{}}
	w := &watchedConn{Conn: client, clock: clock, watch: watch, onClose: func(*watchedConn) {}}
	w.attachSocket()
	var b readBuf
	b.reset(w, nil)

	waitOf := func() int64 { // the pending read's wait start, once it waits
		t.Helper()
		done := make(chan error, 1)
		go func() { b.fill(); done <- b.err }()
		for w.waiting.Load() == 0 {
			runtime.Gosched()
		}
		since := w.waiting.Load()
		if _, err := server.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		b.discard(b.buffered())
		return since
	}
	before := clock.Now()
	if first := waitOf(); first < before {
		t.Fatalf("the first wait counts from %d, before the read began (%d)", first, before)
	}
	arrival := w.lastRead
	if next := waitOf(); next != arrival {
		t.Fatalf("the next wait counts from %d, want the last arrival %d", next, arrival)
	}
	startRequest(w)
	before = clock.Now()
	if next := waitOf(); next < before {
		t.Fatalf("after a new request the wait counts from %d, before the read began (%d)", next, before)
	}
}

// socketPair is a connected TCP pair on 127.0.0.1, closed at the end.
func socketPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}
