package transport

import (
	"bufio"
	"crypto/tls"
	"errors"
	"net"
	"time"

	"github.com/valyala/fasthttp"
)

// bodyTrip is the client's fasthttp RoundTripper. It does what fasthttp's
// own does up to the response headers — a connection from the pool, the
// request written by fasthttp, the headers parsed by fasthttp — and then
// hands the body over as a connBody instead of fasthttp's body stream, so
// the client reads it in place (see connBody) and every response, streamed
// or not, goes through one body reader with one set of limits.
type bodyTrip struct {
	timeout time.Duration // a deadline for the write and the whole body
	limit   int64         // MaxResponseSize
	clock   *Clock
}

// maxInterim bounds the 1xx responses skipped before the real one.
const maxInterim = 100

var errTooManyInterim = errors.New("more than 100 interim (1xx) responses")

// RoundTrip implements fasthttp.RoundTripper. Its retry result is never
// used (the client's RetryIfErr refuses every retry; Send retries stale
// connections itself).
func (t *bodyTrip) RoundTrip(hc *fasthttp.HostClient, req *fasthttp.Request, resp *fasthttp.Response) (bool, error) {
	var deadline time.Time
	if t.timeout > 0 {
		deadline = time.Now().Add(t.timeout)
	}
	cc, err := hc.AcquireConn(t.timeout, req.ConnectionClose())
	if err != nil {
		return false, err
	}
	conn := cc.Conn()
	resp.ParseNetConn(conn)
	if err := conn.SetDeadline(deadline); err != nil { // a zero deadline clears the last request's
		hc.CloseConn(cc)
		return true, err
	}
	if err := writeRequest(hc, conn, req); err != nil {
		hc.CloseConn(cc)
		return true, err
	}
	br := hc.AcquireReader(conn)
	if err := readHeaders(resp, br); err != nil {
		hc.ReleaseReader(br)
		hc.CloseConn(cc)
		return true, err
	}
	body := bodyPool.Get().(*connBody)
	*body = connBody{br: br, conn: conn, watched: watchedOf(conn), clock: t.clock, limit: t.limit,
		keep: !req.ConnectionClose() && !resp.ConnectionClose()}
	body.frame(&resp.Header)
	body.release = func(reuse bool) {
		hc.ReleaseReader(br)
		if reuse {
			hc.ReleaseConn(cc)
		} else {
			hc.CloseConn(cc)
		}
	}
	resp.SetBodyStream(body, resp.Header.ContentLength())
	return false, nil
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
