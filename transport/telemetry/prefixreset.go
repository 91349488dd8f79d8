package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The prefix-cache reset: the one call this package makes that is not a
// scrape. It sits here because the figures it protects (the server's
// prefix-cache hit share, read from its counters) are this package's, and
// because it must go out as a scrape does, on its own net/http
// connection, never through the load generator's.

// ResetPaths are the servers' reset endpoints, tried in this order on the
// server's root: vLLM's (registered only when the server runs with
// VLLM_SERVER_DEV_MODE=1, vllm/entrypoints/serve/dev/cache/api_router.py,
// vLLM 0.32: it answers {"success": false} while running requests hold
// cache blocks) and SGLang's (python/sglang/srt/entrypoints/http_server.py:
// 200 once flushed, 400 while requests are running). A 404 or 405 on one
// tries the next.
var ResetPaths = []string{"/reset_prefix_cache", "/flush_cache"}

// resetRetries and resetPause bound how long a server that refuses the
// reset because requests still hold cache blocks is asked again (vLLM's
// handler says callers may retry): the point's own requests have all
// ended by then, so a refusal outlasting a second is another client's
// load, which a reset cannot make fair.
const (
	resetRetries = 10
	resetPause   = 100 * time.Millisecond
	resetTimeout = 10 * time.Second
)

// ResetPrefixCache empties the prefix cache of the server whose API is at
// base ("http://h:8000/v1": the reset goes to "http://h:8000"), as `vllm
// bench` sweeps do between runs, so a point's prompts find no blocks an
// earlier point or run left behind. It returns nil once the server said
// the cache is empty, else an error naming the endpoint tried and what it
// answered (HTTP status, or vLLM's {"success": false}); the error never
// holds base's credentials.
func ResetPrefixCache(ctx context.Context, base string) error {
	root, shown, err := resetRoot(base)
	if err != nil {
		return err
	}
	client := newClient(1)
	defer client.CloseIdleConnections()
	var tried []string
	for _, path := range ResetPaths {
		status, err := resetOnce(ctx, client, root+path, shown+path)
		switch {
		case err != nil:
			return err
		case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
			tried = append(tried, fmt.Sprintf("POST %s: HTTP %d %s", shown+path, status, http.StatusText(status)))
			continue
		}
		return nil
	}
	return fmt.Errorf("reset the prefix cache: the server has no reset endpoint (%s); "+
		"vLLM serves /reset_prefix_cache only when started with VLLM_SERVER_DEV_MODE=1", strings.Join(tried, "; "))
}

// resetOnce POSTs one reset endpoint, asking again while the server
// refuses because requests hold blocks. It returns the status when the
// endpoint does not exist (404, 405), 200 with a nil error once the cache
// is reset, and an error for every other answer.
func resetOnce(ctx context.Context, client *http.Client, u, shown string) (int, error) {
	var why string
	for attempt := 0; attempt < resetRetries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return 0, fmt.Errorf("reset the prefix cache: POST %s: %w", shown, ctx.Err())
			case <-time.After(resetPause):
			}
		}
		status, body, err := post(ctx, client, u)
		if err != nil {
			return 0, fmt.Errorf("reset the prefix cache: POST %s: %s", shown, errorText(err))
		}
		switch {
		case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
			return status, nil
		case status == http.StatusOK && refused(body):
			why = `answered {"success": false}: running requests still hold cache blocks`
		case status == http.StatusOK:
			return status, nil
		case status == http.StatusBadRequest && strings.HasSuffix(shown, "/flush_cache"):
			why = "HTTP 400: " + snippet(body) // SGLang refuses while requests run
		default:
			return 0, fmt.Errorf("reset the prefix cache: POST %s: HTTP %d %s: %s", shown, status, http.StatusText(status), snippet(body))
		}
	}
	return 0, fmt.Errorf("reset the prefix cache: POST %s %s, %d times over %s; another client's requests are running on the server",
		shown, why, resetRetries, time.Duration(resetRetries-1)*resetPause)
}

func post(ctx context.Context, client *http.Client, u string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, resetTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("User-Agent", "llmbench")
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return resp.StatusCode, body, err
}

// refused reports vLLM's {"success": false}; any other 200 body (SGLang
// answers text) is a reset done.
func refused(body []byte) bool {
	var r struct {
		Success *bool `json:"success"`
	}
	return json.Unmarshal(body, &r) == nil && r.Success != nil && !*r.Success
}

// snippet is the start of an error body, on one line.
func snippet(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		return "empty body"
	}
	return s
}

// resetRoot is the server's root for base, with credentials (a proxy in
// front may need them), and the same without them for messages.
func resetRoot(base string) (root, shown string, err error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", errors.New("reset the prefix cache: the endpoint is not an http(s) URL")
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment = "", "", "", ""
	root = u.String()
	u.User = nil
	return root, u.String(), nil
}
