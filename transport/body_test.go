package transport

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/metrics"
)

// A stream over TLS is read in place like a plain one: its chunks stamped
// as they arrive, the connection kept for the next request.
func TestTLSStreamIsStampedAndReused(t *testing.T) {
	const tokens, gap = 5, 20 * time.Millisecond
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range tokens {
			time.Sleep(gap)
			fmt.Fprint(w, content(fmt.Sprint(i)))
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, finish+doneEvent)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c, _ := newTestClient(t, Config{URL: srv.URL, Stream: true, Insecure: true})
	for range 2 {
		var rec metrics.Record
		c.Send(context.Background(), []byte(`{}`), &rec)
		if rec.Err != nil || rec.Output != "01234" || len(rec.Chunks) != tokens {
			t.Fatalf("err %v, output %q in %d chunks", rec.Err, rec.Output, len(rec.Chunks))
		}
		for i := 1; i < tokens; i++ {
			// The server sleeps gap before each token: the stamps must be
			// those of separate arrivals, not of one late read.
			if d := time.Duration(rec.Chunks[i] - rec.Chunks[i-1]); d < gap/2 {
				t.Errorf("chunks %d and %d stamped %s apart, want about %s", i-1, i, d, gap)
			}
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d TLS connections for 2 sequential requests, want 1", n)
	}
}

// FuzzChunkSize: the one-pass read of a plain line agrees with the
// general parser on every line.
func FuzzChunkSize(f *testing.F) {
	for _, s := range []string{"1a", "ff ; x", "fffffffffffffff", "10000000000000000", "", "1 2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got, err := chunkSize([]byte(line))
		want, wantErr := chunkSizeAny([]byte(line))
		if got != want || (err == nil) != (wantErr == nil) {
			t.Fatalf("chunkSize(%q) = %d, %v; the general parser says %d, %v", line, got, err, want, wantErr)
		}
	})
}

func TestChunkSize(t *testing.T) {
	cases := []struct {
		line string
		want int64
		ok   bool
	}{
		{"1a", 26, true}, {"1A", 26, true}, {"0", 0, true}, {"ff ; name=v", 255, true}, {"10\t", 16, true},
		{"", 0, false}, {"zz", 0, false}, {"-1", 0, false}, {"1 2", 0, false}, {"10000000000000000", 0, false},
		{"fffffffffffffff", 1<<60 - 1, true}, {"0000000000000001", 1, true}, {"7fffffffffffffff", 1<<63 - 1, true},
	}
	for _, tc := range cases {
		got, err := chunkSize([]byte(tc.line))
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("chunkSize(%q) = %d, %v; want %d, ok %v", tc.line, got, err, tc.want, tc.ok)
		}
	}
}
