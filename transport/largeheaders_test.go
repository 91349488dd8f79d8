package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// TestLargeResponseHeaders: the connection's read buffer is 4 KiB
// (readBufferSize), but response headers up to maxHeaderSize (8 KiB, the
// limit before the buffer was halved) are still read, on a connection
// that is then reused; headers past the limit fail as they always did,
// with fasthttp's "small read buffer" error.
func TestLargeResponseHeaders(t *testing.T) {
	for _, tc := range []struct {
		header int
		fail   bool
	}{{100, false}, {3 << 10, false}, {6 << 10, false}, {maxHeaderSize - 200, false}, {9 << 10, true}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("X-Big", strings.Repeat("h", tc.header))
			_, _ = w.Write([]byte(`data: {"choices":[{"delta":{"content":"hi"}}]}` + "\n\n" + finish + doneEvent))
		}))
		c, _ := newTestClient(t, Config{URL: srv.URL, Stream: true})
		for i := range 2 { // the second request reuses the connection
			var rec metrics.Record
			c.Send(context.Background(), nil, &rec)
			switch {
			case tc.fail && (rec.Err == nil || !strings.Contains(rec.Err.Message, "small read buffer")):
				t.Errorf("%d-byte header: got %+v, want the small read buffer error", tc.header, rec.Err)
			case !tc.fail && (rec.Err != nil || rec.Output != "hi"):
				t.Errorf("%d-byte header, request %d: output %q, error %+v", tc.header, i, rec.Output, rec.Err)
			}
		}
		c.Close()
		srv.Close()
	}
}
