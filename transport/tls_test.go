package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// https:// to a server that speaks plain HTTP fails to connect, and says
// why: the TLS handshake got an HTTP answer. Before, it was a reset whose
// message was fasthttp's "tls: first record does not look like a TLS
// handshake" at best.
func TestHTTPSAgainstPlainHTTPIsConnectError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	c, _ := newTestClient(t, Config{URL: strings.Replace(srv.URL, "http://", "https://", 1), API: Chat})
	for range 3 {
		var rec metrics.Record
		c.Send(context.Background(), []byte(`{}`), &rec)
		if rec.Err == nil || rec.Err.Class != metrics.ErrConnect || !strings.Contains(rec.Err.Message, "TLS handshake failed") ||
			!strings.Contains(rec.Err.Message, "plain HTTP") {
			t.Errorf("recorded %+v, want a connect error saying the TLS handshake failed on plain HTTP", rec.Err)
		}
	}
}

// A certificate the client cannot verify is a connect error too, saying
// how to skip verification.
func TestUnverifiedCertificateIsConnectError(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	c, _ := newTestClient(t, Config{URL: srv.URL, API: Chat})
	var rec metrics.Record
	c.Send(context.Background(), []byte(`{}`), &rec)
	if rec.Err == nil || rec.Err.Class != metrics.ErrConnect || !strings.Contains(rec.Err.Message, "TLS handshake failed: ") ||
		!strings.Contains(rec.Err.Message, "--insecure") {
		t.Errorf("recorded %+v, want a connect error naming the certificate and --insecure", rec.Err)
	}
}
