package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// resetServer answers each reset path with the handler given for it and
// 404 elsewhere, counting the POSTs each path got.
func resetServer(t *testing.T, handlers map[string]http.HandlerFunc) (*httptest.Server, map[string]*atomic.Int32) {
	t.Helper()
	posts := map[string]*atomic.Int32{}
	for p := range handlers {
		posts[p] = &atomic.Int32{}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, ok := handlers[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		posts[r.URL.Path].Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, posts
}

func answer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

// vLLM's endpoint is asked on the server's root, whatever API path the
// endpoint has, and a {"success": true} is a reset done.
func TestResetPrefixCacheVLLM(t *testing.T) {
	srv, posts := resetServer(t, map[string]http.HandlerFunc{"/reset_prefix_cache": answer(200, `{"success":true}`)})
	if err := ResetPrefixCache(context.Background(), srv.URL+"/v1"); err != nil {
		t.Fatal(err)
	}
	if n := posts["/reset_prefix_cache"].Load(); n != 1 {
		t.Errorf("%d POSTs, want 1", n)
	}
}

// A server without vLLM's endpoint (404) is asked SGLang's.
func TestResetPrefixCacheSGLang(t *testing.T) {
	srv, posts := resetServer(t, map[string]http.HandlerFunc{"/flush_cache": answer(200, "Cache flushed.")})
	if err := ResetPrefixCache(context.Background(), srv.URL); err != nil {
		t.Fatal(err)
	}
	if n := posts["/flush_cache"].Load(); n != 1 {
		t.Errorf("%d POSTs to /flush_cache, want 1", n)
	}
}

// A failed reset is an error naming the endpoint and what it answered,
// never the URL's credentials: a vLLM without VLLM_SERVER_DEV_MODE (both
// paths 404), a server error, and a vLLM that keeps refusing because
// requests hold its blocks (asked again resetRetries times).
func TestResetPrefixCacheFailures(t *testing.T) {
	for name, c := range map[string]struct {
		handlers map[string]http.HandlerFunc
		want     []string
		posts    int32
	}{
		"no endpoint": {nil, []string{"/reset_prefix_cache: HTTP 404 Not Found", "/flush_cache: HTTP 404 Not Found", "VLLM_SERVER_DEV_MODE=1"}, 0},
		"server error": {map[string]http.HandlerFunc{"/reset_prefix_cache": answer(500, "engine dead")},
			[]string{"POST http://127.0.0.1:", "/reset_prefix_cache: HTTP 500 Internal Server Error: engine dead"}, 1},
		"refused": {map[string]http.HandlerFunc{"/reset_prefix_cache": answer(200, `{"success":false}`)},
			[]string{`/reset_prefix_cache answered {"success": false}: running requests still hold cache blocks, 10 times`}, resetRetries},
	} {
		t.Run(name, func(t *testing.T) {
			srv, posts := resetServer(t, c.handlers)
			base := strings.Replace(srv.URL, "http://", "http://user:s3cret@", 1) + "/v1"
			err := ResetPrefixCache(context.Background(), base)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error %q shows the credentials", err)
			}
			if p := posts["/reset_prefix_cache"]; p != nil && p.Load() != c.posts {
				t.Errorf("%d POSTs, want %d", p.Load(), c.posts)
			}
		})
	}
}

// An endpoint that is not http(s) (gRPC) cannot be reset.
func TestResetPrefixCacheNotHTTP(t *testing.T) {
	if err := ResetPrefixCache(context.Background(), "grpc://127.0.0.1:8001"); err == nil || !strings.Contains(err.Error(), "not an http(s) URL") {
		t.Errorf("error %v", err)
	}
}
