package transport

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/llmbench/llmbench/metrics"
)

// Header is one extra request header, sent verbatim and never written to an
// artifact or a log.
type Header struct{ Name, Value string }

// Config describes the endpoint a client talks to.
type Config struct {
	// URL is the base address: "http://host:port", optionally with a path
	// prefix. The API path is appended unless Path is set.
	URL string
	// Path overrides the API's default path ("/v1/chat/completions"...).
	Path   string
	API    API
	Stream bool
	// Headers are sent with every request (Authorization and friends).
	Headers []Header
	// Timeout bounds a whole request, from send to the last byte.
	Timeout time.Duration
	// IdleTimeout bounds the silence between two reads of a streamed
	// response; 0 disables the watchdog.
	IdleTimeout time.Duration
	// MaxConns caps open connections to the host; it must cover the peak
	// number of requests in flight, or requests wait for a connection.
	MaxConns int
	// Insecure skips TLS certificate verification.
	Insecure bool
}

// Client sends requests and records what came back. It is safe for
// concurrent use by thousands of goroutines; per-request state is pooled.
type Client struct {
	cfg    Config
	target string
	hc     *fasthttp.Client
	clock  *Clock
	watch  *watchdog
	states sync.Pool
}

// NewClient validates cfg and prepares a client stamping with clock.
func NewClient(cfg Config, clock *Clock) (*Client, error) {
	target, err := targetURL(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 1024
	}
	c := &Client{cfg: cfg, target: target, clock: clock, hc: &fasthttp.Client{
		StreamResponseBody:       true, // Do returns at the headers; we time the body
		MaxConnsPerHost:          cfg.MaxConns,
		MaxConnWaitTimeout:       cfg.Timeout,
		MaxIdleConnDuration:      90 * time.Second,
		ReadBufferSize:           8 << 10, // also caps the response header size
		WriteBufferSize:          4 << 10,
		NoDefaultUserAgentHeader: true,
		DialDualStack:            true,
		RetryIfErr:               retryStaleConn,
		TLSConfig:                &tls.Config{InsecureSkipVerify: cfg.Insecure}, //nolint:gosec // opt-in
	}}
	c.states.New = func() any { return newStreamState(clock) }
	if cfg.IdleTimeout > 0 {
		c.watch = newWatchdog(cfg.IdleTimeout)
	}
	return c, nil
}

// Close stops the client's background work and closes idle connections.
func (c *Client) Close() {
	if c.watch != nil {
		c.watch.stop()
	}
	c.hc.CloseIdleConnections()
}

// Target is the full URL requests are sent to.
func (c *Client) Target() string { return c.target }

// retryStaleConn resends a request once when a pooled keep-alive connection
// turns out to have been closed by the server before it read anything — a
// race of the client, not a server fault (net/http retries the same case).
func retryStaleConn(_ *fasthttp.Request, attempts int, err error) (resetTimeout, retry bool) {
	stale := errors.Is(err, fasthttp.ErrConnectionClosed) || errors.Is(err, io.EOF)
	return false, attempts < 2 && stale
}

func targetURL(cfg Config) (string, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("invalid url %q: want http://host:port or https://host:port", cfg.URL)
	}
	path := cfg.Path
	if path == "" {
		path = defaultPathUnder(u.Path, cfg.API.DefaultPath())
	}
	return strings.TrimSuffix(u.String(), "/") + "/" + strings.TrimPrefix(path, "/"), nil
}

// defaultPathUnder is the API's default path below a base URL's own path:
// a base that already ends in the default's version prefix (an OpenAI-style
// "https://host/v1") is not given it twice (no "/v1/v1/chat/completions").
func defaultPathUnder(basePath, def string) string {
	version, rest, ok := strings.Cut(strings.TrimPrefix(def, "/"), "/")
	if ok && strings.HasSuffix(strings.TrimSuffix(basePath, "/"), "/"+version) {
		return rest
	}
	return def
}

// Send posts body and fills rec: Sent, Chunks, Output, Usage, Done and, on
// failure, Err. It never returns an error: every fault is data in rec.
func (c *Client) Send(ctx context.Context, body []byte, rec *metrics.Record) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp) // after the body stream is closed
	c.prepare(req, body)

	rec.Sent = c.clock.Now()
	err := c.hc.Do(req, resp)
	if err != nil {
		rec.Done = c.clock.Now()
		rec.Err = classify(err)
		if ctx.Err() != nil {
			rec.Err = &metrics.Failure{Class: metrics.ErrCanceled, Message: "run interrupted"}
		}
		return
	}
	st := c.states.Get().(*streamState)
	defer c.states.Put(st)
	guard := c.guard(ctx, resp)
	defer guard.finish(resp)

	switch status := resp.StatusCode(); {
	case status < 200 || status > 299:
		rec.Err = httpFailure(status, resp.BodyStream())
		rec.Done = c.clock.Now()
	case c.cfg.Stream && isEventStream(resp):
		st.readStream(resp.BodyStream(), rec, guard)
	default:
		st.readWhole(resp.BodyStream(), rec, guard, c.cfg.API)
	}
}

func (c *Client) prepare(req *fasthttp.Request, body []byte) {
	req.SetRequestURI(c.target)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	if c.cfg.Stream {
		req.Header.Set("Accept", "text/event-stream")
	}
	for _, h := range c.cfg.Headers {
		req.Header.Set(h.Name, h.Value)
	}
	req.SetBodyRaw(body)
	if c.cfg.Timeout > 0 {
		req.SetTimeout(c.cfg.Timeout) // a deadline for the write and the whole body
	}
}

func isEventStream(resp *fasthttp.Response) bool {
	return bytes.HasPrefix(resp.Header.ContentType(), []byte("text/event-stream"))
}

// httpFailure reads a short excerpt of an error response body.
func httpFailure(status int, body io.Reader) *metrics.Failure {
	excerpt, _ := io.ReadAll(io.LimitReader(body, 4<<10))
	msg := strings.TrimSpace(string(excerpt))
	if p, err := (&decoder{}).decode(excerpt); err == nil && p.errMsg != "" {
		msg = p.errMsg
	}
	return &metrics.Failure{Class: metrics.ErrHTTP, Status: status, Message: truncate(msg, 200)}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
