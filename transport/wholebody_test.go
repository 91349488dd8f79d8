package transport

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// bigBodyServer answers every request with body, prebuilt, written from
// one slice: the server allocates nothing in proportion to it, so the
// process's allocations while a request is read are the client's. chunk
// > 0 frames it in chunks of that size instead of a Content-Length.
func bigBodyServer(t *testing.T, body []byte, chunk int) string {
	t.Helper()
	head := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", len(body))
	if chunk > 0 {
		head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
	}
	return startRaw(t, func(c net.Conn, _ <-chan struct{}) {
		_, _ = c.Write([]byte(head))
		if chunk == 0 {
			_, _ = c.Write(body)
			return
		}
		for rest := body; len(rest) > 0; {
			n := min(len(rest), chunk)
			_, _ = fmt.Fprintf(c, "%x\r\n", n)
			_, _ = c.Write(rest[:n])
			_, _ = c.Write([]byte("\r\n"))
			rest = rest[n:]
		}
		_, _ = c.Write([]byte("0\r\n\r\n"))
	}).url
}

// Reading one whole (non-streamed) body costs memory in proportion to
// it, the answer's text included (the record takes it where it lies in
// the body, unescaped in place): at most 1.7 times the body with a
// Content-Length (blocks until a third has arrived, then one buffer of
// the announced length), at most twice the body plus one 64 KiB block when
// it is chunked (blocks joined once). Growing a buffer by doubling while
// the body arrived, then copying the text out of it, cost a 32 MiB body
// 160 MiB, and a 100 MB one 1.42 GB. Allocations are counted
// (runtime.MemStats TotalAlloc over one request), not timed.
func TestWholeBodyMemoryIsProportional(t *testing.T) {
	const size = 32 << 20
	answer := func(text string) []byte {
		return []byte(`{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"` +
			text + `"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`)
	}
	plain := answer(strings.Repeat("x", size))
	escaped := answer(strings.Repeat(`line\n`, size/5)) // 6 bytes of JSON, 5 of text
	for _, tc := range []struct {
		name  string
		body  []byte
		chunk int
		text  int
		start string  // the output's first bytes
		most  float64 // allocated bytes per body byte
		slack uint64  // and a block's unused end
	}{
		{"Content-Length", plain, 0, size, "xxxxxx", 1.7, 0},
		{"Content-Length, escaped text", escaped, 0, size / 5 * 5, "line\nl", 1.7, 0},
		{"one chunk", plain, len(plain), size, "xxxxxx", 2, firstBlock},
		{"1 MiB chunks", plain, 1 << 20, size, "xxxxxx", 2, firstBlock},
		{"1 MiB chunks, escaped text", escaped, 1 << 20, size / 5 * 5, "line\nl", 2, firstBlock},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := bigBodyServer(t, tc.body, tc.chunk)
			c, _ := newTestClient(t, Config{URL: url, API: Chat, Timeout: time.Minute})
			var warm metrics.Record // pools and buffers of the first request are not the body's
			c.Send(context.Background(), []byte(`{}`), &warm)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var rec metrics.Record
			c.Send(context.Background(), []byte(`{}`), &rec)
			runtime.ReadMemStats(&after)
			if rec.Err != nil || len(rec.Output) != tc.text || !strings.HasPrefix(rec.Output, tc.start) {
				t.Fatalf("err %v, output %d bytes (%q...), want %d", rec.Err, len(rec.Output), rec.Output[:min(len(rec.Output), 12)], tc.text)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d MiB body: %d KiB allocated (%.3f×)", len(tc.body)>>20, alloc>>10, float64(alloc)/float64(len(tc.body)))
			// perRequest is what any request allocates, whatever its size.
			const perRequest = 64 << 10
			if most := uint64(tc.most*float64(len(tc.body))) + tc.slack + perRequest; alloc > most {
				t.Errorf("reading a %d MiB body allocated %d KiB, more than %.2f× its size", len(tc.body)>>20, alloc>>10, tc.most)
			}
		})
	}
}

// A record's output taken where it lay in a whole body stays its own: the
// next responses, read on the same client (its buffers pooled), never
// write over it. Answers alternate between letters and sizes around the
// size from which the text is taken instead of copied, plain and escaped.
func TestWholeBodyOutputsStayTheirOwn(t *testing.T) {
	var bodies []string
	var want []string
	for i, n := range []int{100, handOver - 1, handOver, 3 * handOver, 20 << 10, 5 * handOver} {
		letter := string(rune('a' + i))
		text, raw := strings.Repeat(letter, n), strings.Repeat(letter, n)
		if i%2 == 1 {
			text, raw = strings.Repeat(letter+"\n", n/2), strings.Repeat(letter+`\n`, n/2)
		}
		want = append(want, text)
		bodies = append(bodies, `{"choices":[{"message":{"content":"`+raw+`"},"finish_reason":"stop"}]}`)
	}
	var next atomic.Int64
	srv := startKeepAliveRaw(t, func() string { return bodies[int(next.Add(1)-1)%len(bodies)] })
	c, _ := newTestClient(t, Config{URL: srv, API: Chat})
	recs := make([]metrics.Record, 2*len(bodies))
	for i := range recs {
		c.Send(context.Background(), []byte(`{}`), &recs[i])
	}
	for i := range recs {
		if recs[i].Err != nil || recs[i].Output != want[i%len(want)] {
			t.Errorf("request %d: err %v, output %d bytes starting %q, want %d bytes of %q", i, recs[i].Err,
				len(recs[i].Output), recs[i].Output[:min(8, len(recs[i].Output))], len(want[i%len(want)]), want[i%len(want)][:2])
		}
	}
}

// startKeepAliveRaw answers every request on a keep-alive connection with
// a JSON body of next()'s.
func startKeepAliveRaw(t *testing.T, next func() string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					body := next()
					fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// A server that announces a huge body and sends little of it costs what
// it sent, not what it announced: no buffer is larger than what has
// arrived (at most three times it), whether the size is a Content-Length
// or a chunk's.
func TestAnnouncedBodyIsNotAllocatedAhead(t *testing.T) {
	const announced = 200 << 20
	sent := strings.Repeat("x", 100<<10)
	for name, raw := range map[string]string{
		"Content-Length": fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", announced, sent),
		"chunk":          fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s", announced, sent),
	} {
		t.Run(name, func(t *testing.T) {
			c, _ := newTestClient(t, Config{URL: startRaw(t, send(raw)).url, API: Chat})
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var rec metrics.Record
			c.Send(context.Background(), []byte(`{}`), &rec)
			runtime.ReadMemStats(&after)
			if rec.Err == nil || rec.Err.Class != metrics.ErrReset {
				t.Errorf("recorded %+v, want a reset (the body was cut)", rec.Err)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d KiB sent of %d MiB announced: %d KiB allocated", len(sent)>>10, announced>>20, alloc>>10)
			if alloc > 4<<20 {
				t.Errorf("a body that announced %d MiB and sent %d KiB allocated %d KiB", announced>>20, len(sent)>>10, alloc>>10)
			}
		})
	}
}

// FuzzReadBody reads any bytes as a whole body — chunked, sized or up to
// the close, in reads of any sizes, under any limit — with readBody and
// with a plain read to the end: both give the same payload and the same
// end (complete, cut, malformed or oversize), and readBody leaves the body
// at its end when it completes, so the connection can be reused.
func FuzzReadBody(f *testing.F) {
	f.Add([]byte("5\r\nhello\r\n0\r\n\r\n"), []byte{3}, uint8(byChunks), int64(0), uint16(100))
	f.Add([]byte("hello, world"), []byte{1, 7}, uint8(bySize), int64(0), uint16(12))
	f.Add([]byte("hello, world"), []byte{1, 7}, uint8(bySize), int64(4), uint16(12))
	f.Add([]byte("hello"), []byte{2}, uint8(bySize), int64(0), uint16(9))
	f.Add([]byte("hello"), []byte(nil), uint8(byClose), int64(3), uint16(0))
	f.Add([]byte("ffffff\r\nab"), []byte(nil), uint8(byChunks), int64(0), uint16(0))
	f.Fuzz(func(t *testing.T, data, sizes []byte, frame uint8, limit int64, length uint16) {
		frame %= 3
		open := func() *connBody {
			b := &connBody{in: readBuf{src: &netReads{data: data, sizes: sizes}}, clock: NewClock(),
				release: func(bool) {}, limit: max(limit, 0)}
			if b.framing = framing(frame); b.framing == bySize {
				b.left = int64(length)
			} else if b.framing == byClose {
				b.left = -1
			}
			return b
		}
		want, wantErr := io.ReadAll(open())
		st := &streamState{}
		b := open()
		got, err := st.readBody(b)
		if (err == nil) != (wantErr == nil) || err != nil && classOf(err) != classOf(wantErr) {
			t.Fatalf("readBody ended with %v, a plain read with %v", err, wantErr)
		}
		if err == nil && (!bytes.Equal(got, want) || !b.eof) {
			t.Fatalf("readBody read %q (at the end: %v), a plain read %q", clipBytes(got), b.eof, clipBytes(want))
		}
	})
}
