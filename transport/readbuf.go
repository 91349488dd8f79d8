package transport

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"sync"
)

// readBuf is a response body's read buffer: the bytes read from the
// connection and not yet handed out, which connBody parses in place.
//
// On a plain TCP connection it holds memory only while it holds bytes. A
// read that finds the socket empty gives the buffer back to a pool and
// waits for the socket without one (watchedConn.fill), taking a buffer
// again once data is there. A stream waits for its next token nearly all
// its life, so the few buffers in use at any moment are shared by all
// streams instead of each holding its own: at 10,000 open streams that is
// 40 MB less, and as much again off the collector's heap goal. Over TLS
// (the TLS layer buffers records of its own, so an empty socket does not
// mean nothing to read) the buffer is held for the body's life.
//
// A view handed out (peek, readSlice) is valid until the next call that
// reads, as with a bufio.Reader.
type readBuf struct {
	buf  []byte // buffered bytes are buf[r:w]; nil while released
	r, w int
	err  error // the read's error, returned once the bytes before it are out
	// waiter fills the buffer on a plain TCP connection, waiting without
	// it; nil: src's Read fills it (the connection).
	waiter *watchedConn
	src    io.Reader
}

// readBufs pools the buffers of readBufferSize.
var readBufs = sync.Pool{New: func() any { return new([readBufferSize]byte) }}

// reset makes b read conn, starting with the bytes carried over from the
// header parser's reader (see readResponse).
func (b *readBuf) reset(conn net.Conn, carried []byte) {
	*b = readBuf{src: conn, waiter: bufferless(conn)}
	if len(carried) == 0 {
		return
	}
	if len(carried) > readBufferSize {
		b.buf = make([]byte, len(carried)+readBufferSize) // after large headers: once, with room to read on
	} else {
		b.take()
	}
	b.w = copy(b.buf, carried)
}

func (b *readBuf) buffered() int { return b.w - b.r }

// take gives b a buffer when it has none.
func (b *readBuf) take() {
	if b.buf == nil {
		b.buf = readBufs.Get().(*[readBufferSize]byte)[:]
	}
}

// release gives b's buffer back to the pool (one of another size to the
// collector); whatever it still held is dropped.
func (b *readBuf) release() {
	if len(b.buf) == readBufferSize {
		readBufs.Put((*[readBufferSize]byte)(b.buf))
	}
	b.buf, b.r, b.w = nil, 0, 0
}

// fill reads once more from the connection, after the buffered bytes.
// An error is kept (err): a read may bring bytes and the error together,
// and the bytes are handed out first.
func (b *readBuf) fill() {
	if b.r == b.w {
		b.r, b.w = 0, 0
	} else if b.r > 0 {
		b.w = copy(b.buf, b.buf[b.r:b.w])
		b.r = 0
	}
	for range maxEmptyReads {
		before := b.w
		var err error
		if b.waiter != nil {
			err = b.waiter.fill(b)
		} else {
			b.take()
			var n int
			n, err = b.src.Read(b.buf[b.w:])
			b.w += n
		}
		if err != nil {
			b.err = err
			return
		}
		if b.w > before {
			return
		}
	}
	b.err = io.ErrNoProgress
}

// full reports a buffer that holds no room for another read.
func (b *readBuf) full() bool { return b.buf != nil && b.buffered() == len(b.buf) }

// peek returns the next n buffered bytes, reading until there are n; with
// fewer, the read's error.
func (b *readBuf) peek(n int) ([]byte, error) {
	for b.buffered() < n && b.err == nil && !b.full() {
		b.fill()
	}
	if b.buffered() < n {
		if b.err == nil {
			return b.buf[b.r:b.w], bufio.ErrBufferFull
		}
		return b.buf[b.r:b.w], b.err
	}
	return b.buf[b.r : b.r+n], nil
}

// discard drops the next n buffered bytes (n at most buffered).
func (b *readBuf) discard(n int) { b.r += n }

// readSlice reads up to and including the first delim, as bufio.Reader's
// ReadSlice does: bufio.ErrBufferFull when the buffer fills without one.
func (b *readBuf) readSlice(delim byte) ([]byte, error) {
	searched := 0
	for {
		if i := bytes.IndexByte(b.buf[b.r+searched:b.w], delim); i >= 0 {
			line := b.buf[b.r : b.r+searched+i+1]
			b.r += searched + i + 1
			return line, nil
		}
		err := b.err
		if err == nil && b.full() {
			err = bufio.ErrBufferFull
		}
		if err != nil {
			line := b.buf[b.r:b.w]
			b.r = b.w
			return line, err
		}
		searched = b.buffered()
		b.fill()
	}
}

// bufferless is the connection that fills a body's buffer waiting without
// it: a plain TCP connection the client dialed. Nil for TLS (see readBuf)
// and anything else.
func bufferless(conn net.Conn) *watchedConn {
	if w, ok := conn.(*watchedConn); ok && w.raw != nil {
		return w
	}
	return nil
}
