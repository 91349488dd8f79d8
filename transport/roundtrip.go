package transport

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"time"

	"github.com/valyala/fasthttp"
)

// bodyTrip is the client's fasthttp RoundTripper. It does what fasthttp's
// own does up to the written request — a connection from the pool, the
// request written by fasthttp — and hands the rest back to Send as a
// sentRequest: the wait for the response headers, fasthttp's header
// parser, and then the body as a connBody instead of fasthttp's body
// stream, so the client reads it in place (see connBody) and every
// response, streamed or not, goes through one body reader with one set of
// limits.
type bodyTrip struct {
	timeout time.Duration // a deadline for the write and the whole body
	limit   int64         // MaxResponseSize
	clock   *Clock
}

// maxInterim bounds the 1xx responses skipped before the real one.
const maxInterim = 100

var errTooManyInterim = errors.New("more than 100 interim (1xx) responses")

// RoundTrip implements fasthttp.RoundTripper. Once the request is written
// it returns a *sentRequest as its error, which fasthttp's Do hands back
// to Send unchanged (the client's RetryIfErr refuses every retry), so the
// wait for the headers happens outside fasthttp's call stack (see
// Client.sendApart). Its retry result is never used: Send resends a
// request itself, and only one that failed as a notSentError.
func (t *bodyTrip) RoundTrip(hc *fasthttp.HostClient, req *fasthttp.Request, resp *fasthttp.Response) (bool, error) {
	var deadline time.Time
	if t.timeout > 0 {
		deadline = time.Now().Add(t.timeout)
	}
	cc, err := hc.AcquireConn(t.timeout, req.ConnectionClose())
	for err == nil && closedWhileIdle(cc.Conn()) {
		// Each one closed is gone from the pool, and a new connection is
		// never probed, so this ends.
		hc.CloseConn(cc)
		cc, err = hc.AcquireConn(t.timeout, req.ConnectionClose())
	}
	if err != nil {
		return false, dialFailure(err)
	}
	conn := cc.Conn()
	resp.ParseNetConn(conn)
	sent := &sentRequest{trip: t, hc: hc, conn: conn, ctx: requestContext(req), keep: !req.ConnectionClose(),
		release: func(reuse bool) {
			if reuse {
				hc.ReleaseConn(cc)
			} else {
				hc.CloseConn(cc)
			}
		}}
	if err := sent.send(req, deadline); err != nil {
		hc.CloseConn(cc)
		return false, err
	}
	return false, sent
}

// sentRequest is a request written on its connection whose response has
// yet to be read. It travels out of fasthttp's Do as an error.
type sentRequest struct {
	trip    *bodyTrip
	hc      *fasthttp.HostClient
	conn    net.Conn
	ctx     context.Context
	keep    bool // the request lets the connection be reused
	reused  bool // the connection had carried a request before
	heard   int64
	release func(reuse bool) // the connection back to the pool, or closed
}

func (s *sentRequest) Error() string { return "request sent, response not read yet" }

// send writes req on the connection. A failure says, as a notSentError,
// when the request provably never reached the server. Cancelling the
// request's context ends the write at once.
func (s *sentRequest) send(req *fasthttp.Request, deadline time.Time) error {
	s.reused = startRequest(s.conn)
	if err := s.conn.SetDeadline(deadline); err != nil { // a zero deadline clears the last request's
		return unsent(s.reused, err)
	}
	// After the deadline is set, so that it cannot undo the cancel's.
	defer context.AfterFunc(s.ctx, s.cut)()
	if err := handshake(s.conn, s.reused); err != nil {
		return err
	}
	if s.reused && beforeWrite != nil {
		beforeWrite()
	}
	s.heard = received(s.conn)
	return unsent(s.reused, writeRequest(s.hc, s.conn, req))
}

// receive reads the response headers into resp and hands the body over
// as resp's body stream (a connBody). It waits until the socket is
// readable a few frames deep, and only then parses the headers: with
// them there, fasthttp's parser stays within the 4 KiB stack a stream
// lives in (TestStreamStackStaysSmall; see Client.sendApart), where a
// wait inside it would park 3 KiB deep. A failure says, as a
// notSentError, when the request may be sent again (see unanswered).
// Cancelling the
// request's context ends the wait at once: fasthttp's own wait for the
// headers knows no context, and a server that never answers would keep
// an interrupted run's request until its timeout.
func (s *sentRequest) receive(resp *fasthttp.Response) error {
	defer context.AfterFunc(s.ctx, s.cut)()
	if w := watchedOf(s.conn); w != nil {
		if err := w.awaitReadable(); err != nil {
			s.release(false)
			return err
		}
	}
	return s.readResponse(resp)
}

// readResponse parses the response headers and sets the body up.
func (s *sentRequest) readResponse(resp *fasthttp.Response) error {
	br := s.hc.AcquireReader(s.conn)
	err := readHeaders(resp, br)
	if _, small := errors.AsType[*fasthttp.ErrSmallBuffer](err); small {
		br, err = readLargeHeaders(s.hc, br, s.conn, resp)
	}
	if err != nil {
		releaseReader(s.hc, br)
		err = unanswered(s.conn, s.reused && received(s.conn) == s.heard, err) // before the close: it looks at the socket
		s.release(false)
		return err
	}
	body := bodyPool.Get().(*connBody)
	*body = connBody{conn: s.conn, watched: watchedOf(s.conn), clock: s.trip.clock, limit: s.trip.limit,
		keep: s.keep && !resp.ConnectionClose(), release: s.release}
	body.frame(&resp.Header)
	// What the header parser read past the headers is the body's start;
	// the parser's reader goes back to the pool now, not after the body.
	carried, _ := br.Peek(br.Buffered())
	body.in.reset(s.conn, carried)
	releaseReader(s.hc, br)
	resp.SetBodyStream(body, resp.Header.ContentLength())
	return nil
}

// cut makes the connection's pending and next reads and writes fail at
// once (a cancelled request).
func (s *sentRequest) cut() { _ = s.conn.SetDeadline(time.Unix(1, 0)) }

// The connection's read buffer holds the response headers and then every
// read of the body, which is parsed in place (connBody): it is kept
// through a whole stream, so at 10,000 open streams each KiB of it is
// 10 MB. Token events are a few hundred bytes, so readBufferSize serves
// them; a response whose headers do not fit is read again through a
// buffer of maxHeaderSize, the limit on response headers (fasthttp's
// "small read buffer" error past it).
const (
	readBufferSize = 4 << 10
	maxHeaderSize  = 8 << 10
)

// readLargeHeaders reads response headers that did not fit br (fasthttp
// leaves what it peeked in br) through a maxHeaderSize reader of those
// bytes and the rest of the connection, giving br back to the pool.
func readLargeHeaders(hc *fasthttp.HostClient, br *bufio.Reader, conn net.Conn, resp *fasthttp.Response) (*bufio.Reader, error) {
	peeked, _ := br.Peek(br.Buffered())
	large := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(bytes.Clone(peeked)), conn), maxHeaderSize)
	hc.ReleaseReader(br)
	resp.Header.Reset()
	return large, readHeaders(resp, large)
}

// releaseReader gives a reader of the pool's size back to it; a
// readLargeHeaders one is left to the garbage collector.
func releaseReader(hc *fasthttp.HostClient, br *bufio.Reader) {
	if br.Size() == readBufferSize {
		hc.ReleaseReader(br)
	}
}

// requestContextKey holds, among a request's user values, the context
// Send was given, for the round trip to end on it.
type requestContextKey struct{}

// requestContext is the context Send put on req (withContext), or one
// that is never done.
func requestContext(req *fasthttp.Request) context.Context {
	if ctx, ok := req.UserValue(requestContextKey{}).(context.Context); ok {
		return ctx
	}
	return context.Background()
}

// withContext puts ctx on req for its round trip (requestContext).
func withContext(req *fasthttp.Request, ctx context.Context) {
	req.SetUserValue(requestContextKey{}, ctx)
}

// notSentError is an attempt that provably never reached the server
// whole, so sending it again cannot make the server do its work twice:
// Go's net/http rule for a request that is not idempotent (a POST). That is
// a write that failed on a keep-alive connection the server had closed
// while it was idle (closedWhileIdle catches most of those before a byte
// is written), or a request the kernel shows arrived after the server had
// closed the connection (closedBeforeRequest). Any other attempt that
// failed after the whole request was written — a reset, a close before
// the answer — may have reached the server, and is a fault.
type notSentError struct{ err error }

func (e notSentError) Error() string { return e.err.Error() }
func (e notSentError) Unwrap() error { return e.err }

// unsent marks a failure to write the request on a reused connection as
// one that may be sent again. On a connection dialed for the request the
// failure is the server's (it accepted and dropped it), and a timeout
// means the request's time is up: neither is sent again.
func unsent(reused bool, err error) error {
	if err == nil {
		return nil
	}
	if !reused || errors.Is(err, fasthttp.ErrTimeout) {
		return err
	}
	return notSentError{err}
}

// beforeWrite, when set (by a test), runs after a reused connection
// passed closedWhileIdle and before the request is written to it: the
// instant a server's idle close can still race the request.
var beforeWrite func()

// unanswered is the failure of a request written whole that got no
// response. It is not sent again — whatever the server did with it, a
// POST is not idempotent — unless, on a reused connection that brought no
// byte back, the kernel shows the server had closed it before the request
// arrived (closedBeforeRequest).
func unanswered(conn net.Conn, silentReuse bool, err error) error {
	if w := watchedOf(conn); silentReuse && w != nil && closedBeforeRequest(w.Conn) {
		return notSentError{err}
	}
	return err
}

// received is how many bytes have been read from conn's socket.
func received(conn net.Conn) int64 {
	if w := watchedOf(conn); w != nil {
		return w.received
	}
	return 0
}

// closedWhileIdle reports a pooled keep-alive connection the server has
// closed (or written to unasked) since its last response; see closedByPeer.
func closedWhileIdle(conn net.Conn) bool {
	w := watchedOf(conn)
	return w != nil && w.requests > 0 && closedByPeer(w.Conn)
}

// startRequest counts a request on conn and reports whether the
// connection had carried one before.
func startRequest(conn net.Conn) (reused bool) {
	w := watchedOf(conn)
	if w == nil {
		return false
	}
	w.requests++
	w.dataAt = 0 // the wait for this answer counts from now
	return w.requests > 1
}

// handshake completes a new TLS connection's handshake before the request
// is written (fasthttp leaves it to the first write), so a failed one is a
// connect failure that says so, not a write that failed.
func handshake(conn net.Conn, reused bool) error {
	tc, ok := conn.(*tls.Conn)
	if !ok || reused {
		return nil
	}
	if err := tc.Handshake(); err != nil {
		return &tlsHandshakeError{err}
	}
	return nil
}

// writeRequest writes req through fasthttp's pooled writer; a timeout is
// fasthttp's ErrTimeout, as its own transport reports it.
func writeRequest(hc *fasthttp.HostClient, conn net.Conn, req *fasthttp.Request) error {
	bw := hc.AcquireWriter(conn)
	err := req.Write(bw)
	if err == nil {
		err = bw.Flush()
	}
	hc.ReleaseWriter(bw)
	var timeout interface{ Timeout() bool }
	if errors.As(err, &timeout) && timeout.Timeout() {
		return fasthttp.ErrTimeout
	}
	return err
}

// readHeaders parses the response headers, skipping interim (1xx)
// responses as fasthttp does.
func readHeaders(resp *fasthttp.Response, br *bufio.Reader) error {
	for range maxInterim {
		if err := resp.Header.Read(br); err != nil {
			return err
		}
		if s := resp.StatusCode(); s < 100 || s > 199 || s == fasthttp.StatusSwitchingProtocols {
			return nil
		}
	}
	return errTooManyInterim
}

// frame sets how the body ends from its headers.
func (b *connBody) frame(h *fasthttp.ResponseHeader) {
	switch n := h.ContentLength(); {
	case h.StatusCode() == fasthttp.StatusNoContent || h.StatusCode() == fasthttp.StatusNotModified:
		b.framing, b.left = bySize, 0
	case n >= 0:
		b.framing, b.left = bySize, int64(n)
	case n == -1:
		b.framing = byChunks
	default:
		b.framing, b.left, b.keep = byClose, -1, false
	}
}

// watchedOf is the client connection under conn (a TLS connection wraps
// it), nil when conn was not dialed by a Client.
func watchedOf(conn net.Conn) *watchedConn {
	if t, ok := conn.(*tls.Conn); ok {
		conn = t.NetConn()
	}
	w, _ := conn.(*watchedConn)
	return w
}
