package transport

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	// Model names the model in KServe's default path
	// (v2/models/{model}/generate); the other APIs name it in the body.
	Model string
	// Backend is the Triton backend (TensorRTLLM or VLLM) a triton
	// request's tensors are shaped for; the other APIs ignore it.
	Backend string
	// Headers are sent with every request (Authorization and friends).
	Headers []Header
	// SessionHeader, when set, names a header that carries each
	// conversation turn's session id (Record.Session), so a session-affine
	// router (Dynamo, llm-d) can keep a conversation on one replica.
	SessionHeader string
	// Timeout bounds a whole request, from send to the last byte.
	Timeout time.Duration
	// IdleTimeout bounds every wait for the server once the request is
	// sent: for the response headers, and between two reads of the body,
	// streamed or not (and a connect). 0 disables the watchdog.
	IdleTimeout time.Duration
	// MaxConns caps open connections to the host; it must cover the peak
	// number of requests in flight, or requests wait for a connection.
	MaxConns int
	// Insecure skips TLS certificate verification.
	Insecure bool
	// MaxResponseSize caps the bytes of one response body and
	// MaxSSELineSize one line of an SSE stream; a response over either is
	// an oversize failure. 0 means DefaultMaxResponseSize and
	// DefaultMaxSSELineSize.
	MaxResponseSize int64
	MaxSSELineSize  int64
	// SourceAddrs, when set, are the local addresses outgoing connections
	// are bound to, one after another (see ParseSourceAddresses): each
	// (source, destination) pair has its own ~28k ephemeral ports, so
	// several take one process past that.
	SourceAddrs []netip.Addr
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
	// dialed maps a connection's local address to its *watchedConn, so
	// Send can tell an idle timeout from the error fasthttp made of it.
	dialed sync.Map
	// sources counts connections dialed from SourceAddrs, for the round
	// robin over them.
	sources atomic.Uint64
	// sending holds a slot per sendApart goroutine running.
	sending chan struct{}
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
	if cfg.MaxResponseSize <= 0 {
		cfg.MaxResponseSize = DefaultMaxResponseSize
	}
	if cfg.MaxSSELineSize <= 0 {
		cfg.MaxSSELineSize = DefaultMaxSSELineSize
	}
	c := &Client{cfg: cfg, target: target, clock: clock, sending: make(chan struct{}, maxSending), hc: &fasthttp.Client{
		StreamResponseBody:       true, // Do returns at the headers; we time the body
		MaxConnsPerHost:          cfg.MaxConns,
		MaxConnWaitTimeout:       cfg.Timeout,
		MaxIdleConnDuration:      90 * time.Second,
		ReadBufferSize:           readBufferSize, // headers past it get a maxHeaderSize reader (readResponse)
		WriteBufferSize:          4 << 10,
		NoDefaultUserAgentHeader: true,
		// The path goes out as built: fasthttp would decode a model name's
		// escaped "/" (KServe's v2/models/{model}/...) into a separator.
		DisablePathNormalizing: true,
		RetryIfErr:             noRetry,                                       // Send retries a stale connection itself, on a fresh one
		TLSConfig:              &tls.Config{InsecureSkipVerify: cfg.Insecure}, //nolint:gosec // opt-in
		Transport:              &bodyTrip{timeout: cfg.Timeout, limit: cfg.MaxResponseSize, clock: clock},
	}}
	c.hc.DialTimeout = c.dial
	c.states.New = func() any { return newStreamState(clock, c.cfg.MaxSSELineSize, cfg.API) }
	if cfg.IdleTimeout > 0 {
		c.watch = newWatchdog(cfg.IdleTimeout, clock)
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

// dial opens a connection (IPv4 or IPv6) and notes when. With an idle
// timeout the connection is watched, and a connect that takes longer than
// the idle timeout fails like any other silence from the server.
func (c *Client) dial(addr string, timeout time.Duration) (net.Conn, error) {
	if idle := c.cfg.IdleTimeout; idle > 0 && (timeout <= 0 || idle < timeout) {
		timeout = idle
	}
	conn, err := c.connect(addr, timeout)
	if err != nil {
		return nil, err
	}
	w := &watchedConn{Conn: conn, clock: c.clock, watch: c.watch, onClose: c.forget}
	w.attachSocket()
	c.dialed.Store(conn.LocalAddr().String(), w)
	if c.watch != nil {
		c.watch.add(w)
	}
	return w, nil
}

// connect dials addr, from the next of SourceAddrs when there are any.
func (c *Client) connect(addr string, timeout time.Duration) (net.Conn, error) {
	if len(c.cfg.SourceAddrs) == 0 {
		return fasthttp.DialDualStackTimeout(addr, timeout)
	}
	src := c.cfg.SourceAddrs[(c.sources.Add(1)-1)%uint64(len(c.cfg.SourceAddrs))]
	network := "tcp4"
	if !src.Is4() {
		network = "tcp6"
	}
	d := net.Dialer{Timeout: timeout, LocalAddr: &net.TCPAddr{IP: src.AsSlice()}, Control: bindLater}
	return d.Dial(network, addr)
}

// forget stops watching a closed connection. It stays in dialed, because
// fasthttp closes a failed attempt's connection before Send looks at it;
// the next connection on the same local port replaces it, so dialed is
// bounded by the ephemeral port range.
func (c *Client) forget(w *watchedConn) {
	if c.watch != nil {
		c.watch.remove(w)
	}
}

// connOf is the connection resp came on, nil when the client cannot place
// it (the attempt failed before a connection was acquired).
func (c *Client) connOf(resp *fasthttp.Response) *watchedConn {
	if resp.LocalAddr() == nil {
		return nil
	}
	w, _ := c.dialed.Load(resp.LocalAddr().String())
	conn, _ := w.(*watchedConn)
	return conn
}

// maxResends bounds how often one request that never reached the server
// is sent again (see notSentError).
const maxResends = 3

// noRetry leaves every retry decision to Send, which knows whether the
// request reached the server (fasthttp would retry on the next pooled
// connection whatever had happened).
func noRetry(*fasthttp.Request, int, error) (resetTimeout, retry bool) { return false, false }

func targetURL(cfg Config) (string, error) {
	if err := CheckURL(cfg.URL); err != nil {
		return "", fmt.Errorf("invalid url: %v; want http://host:port or https://host:port", err)
	}
	for _, h := range cfg.Headers {
		if err := CheckReservedHeader(h.Name); err != nil {
			return "", fmt.Errorf("header %v", err)
		}
	}
	u, _ := url.Parse(cfg.URL)
	path := cfg.Path
	if path == "" {
		path = defaultPathUnder(u.Path, cfg.API.DefaultPath(cfg.Model, cfg.Stream))
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
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp) // after the body stream is closed
	out := pendingRequest{ctx: ctx, body: body, session: rec.Session}

	rec.Sent = c.clock.Now()
	err := c.exchange(&out, resp)
	for errors.As(err, new(notSentError)) && ctx.Err() == nil && rec.Retries < maxResends {
		// The request never reached the server whole (see notSentError):
		// send it on another connection, timed from that attempt.
		rec.Retries++
		rec.Sent = c.clock.Now()
		err = c.exchange(&out, resp)
	}
	if err != nil {
		rec.Done = c.clock.Now()
		rec.Err = c.sendFailure(ctx, resp, err)
		return
	}
	c.read(ctx, resp, rec)
}

// pendingRequest is what a request is built from (Client.request), each
// time it is sent.
type pendingRequest struct {
	ctx     context.Context
	body    []byte
	session string
}

// request builds out's fasthttp request, from the pool.
func (c *Client) request(out *pendingRequest) *fasthttp.Request {
	req := fasthttp.AcquireRequest()
	c.prepare(req, out.body)
	withContext(req, out.ctx)
	if c.cfg.SessionHeader != "" && out.session != "" {
		req.Header.Set(c.cfg.SessionHeader, out.session)
	}
	return req
}

// exchange sends out and reads the response headers into resp, leaving
// the body as resp's body stream (see bodyTrip).
func (c *Client) exchange(out *pendingRequest, resp *fasthttp.Response) error {
	err := c.sendApart(out, resp)
	if sent, ok := err.(*sentRequest); ok {
		err = sent.receive(resp)
	}
	return err
}

// sendApart runs fasthttp's Do — a connection from the pool or dialed,
// the request written — on a goroutine of its own, which ends there; the
// wait for the headers is the caller's (sentRequest.receive). That work
// goes deep (fasthttp's client, a dial through net's resolver and
// connect, buffers allocated on the way) and grows a goroutine's stack
// from 4 to 8 KiB, while the rest of a stream, parked in its socket read
// with ~2.3 KiB in use, fits in 4: a stream's goroutine that did it
// itself would keep the 8 KiB stack for the whole stream, since the
// runtime halves a stack only when under a quarter of it is in use. At
// 10,000 open streams that is 40 MB. The goroutine, its hand-over and
// the wait's peek at the socket cost ~3 µs of CPU per request
// (BenchmarkRequest), nothing per token.
//
// At most maxSending of those goroutines run at once: when thousands of
// requests start together, the rest wait here, a few frames deep, instead
// of in fasthttp's own limit on concurrent dials (1,000, deep in its
// dialer) or in the connect, each on an 8 KiB stack.
//
// The fasthttp request is built in the slot and goes back to the pool
// once written (the response needs none of it), so no more requests exist
// at once than slots: built before the wait, the 10,000 requests of a
// 10,000-stream start all existed together, and then stayed in fasthttp's
// pool, ~1.3 KB each, until the collections after the streams ended.
func (c *Client) sendApart(out *pendingRequest, resp *fasthttp.Response) error {
	c.sending <- struct{}{}
	done := make(chan error, 1)
	go func() {
		req := c.request(out)
		err := c.hc.Do(req, resp)
		fasthttp.ReleaseRequest(req)
		<-c.sending
		done <- err
	}()
	return <-done
}

// maxSending bounds the goroutines of sendApart running at once: as many
// as fasthttp's dialer lets connect at once, so no request waits longer
// than it did.
const maxSending = 1000

// sendFailure classifies an attempt that got no response headers.
func (c *Client) sendFailure(ctx context.Context, resp *fasthttp.Response, err error) *metrics.Failure {
	if ctx.Err() != nil {
		return fail(metrics.ErrCanceled, 0, "run interrupted")
	}
	if conn := c.connOf(resp); conn != nil && conn.idled.Load() {
		return idleFailure(c.cfg.IdleTimeout)
	}
	if errors.Is(err, fasthttp.ErrConnectionClosed) || errors.Is(err, io.EOF) {
		// fasthttp's own text blames a missing "Connection: close"; a reset
		// reads the same to it (it takes any error on the first byte for
		// an end), and the request may have reached the server either way.
		return fail(metrics.ErrReset, 0, errClosedUnanswered)
	}
	return classify(err)
}

// errClosedUnanswered is the failure of a request the server took the
// connection away from before answering.
const errClosedUnanswered = "the server closed or reset the connection after the request was sent, before any response byte"

// read consumes the response to a request whose headers have arrived.
func (c *Client) read(ctx context.Context, resp *fasthttp.Response, rec *metrics.Record) {
	st := c.states.Get().(*streamState)
	defer c.release(st)
	guard := c.guard(ctx, resp)
	defer guard.finish(resp)
	st.encoding = string(resp.Header.ContentEncoding())
	body := resp.BodyStream() // a *connBody (see bodyTrip), limited to MaxResponseSize

	switch status := resp.StatusCode(); {
	case status < 200 || status > 299:
		rec.Err = httpFailure(status, body, c.cfg.API)
		rec.Done = c.clock.Now()
	case c.cfg.Stream && isEventStream(resp):
		st.readStream(body, rec, guard)
	default:
		st.readWhole(body, rec, guard, c.cfg.API)
		if c.cfg.API == TGI && rec.Err == nil {
			tgiPromptTokens(resp, rec)
		}
	}
}

// tgiPromptTokens takes the prompt's count from TGI's x-prompt-tokens
// header: a whole /generate response counts only the answer in its body
// (details.generated_tokens), the prompt in that header.
func tgiPromptTokens(resp *fasthttp.Response, rec *metrics.Record) {
	n, err := strconv.Atoi(string(resp.Header.Peek("x-prompt-tokens")))
	if err != nil || n <= 0 || rec.Usage.PromptTokens > 0 {
		return
	}
	rec.Usage.PromptTokens, rec.Usage.Reported = n, true
}

// release returns st to the pool, without the buffers a huge response
// grew, so one runaway answer does not stay resident for the whole run.
func (c *Client) release(st *streamState) {
	st.shrink()
	c.states.Put(st)
}

func (c *Client) prepare(req *fasthttp.Request, body []byte) {
	req.SetRequestURI(c.target)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	if c.cfg.Stream {
		req.Header.Set("Accept", "text/event-stream")
	}
	if c.cfg.API == Messages {
		// Anthropic refuses a request without it; a header given by the
		// user (a newer version) replaces it below.
		req.Header.Set("anthropic-version", AnthropicVersion)
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
func httpFailure(status int, body io.Reader, api API) *metrics.Failure {
	excerpt, _ := io.ReadAll(io.LimitReader(body, 4<<10))
	msg := string(excerpt)
	if p, err := (&decoder{api: api}).decode(excerpt); err == nil && p.errMsg != "" {
		msg = p.errMsg
	}
	return fail(metrics.ErrHTTP, status, msg)
}
