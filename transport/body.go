package transport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"net"
	"sync"
	"sync/atomic"
)

// framing is how a response body's end is found.
type framing uint8

const (
	bySize   framing = iota // Content-Length bytes (0 for 204 and 304)
	byChunks                // Transfer-Encoding: chunked
	byClose                 // neither: the body ends when the server closes
)

// connBody is a response body read in place from the connection's
// buffered reader: next hands out views of fasthttp's read buffer, each as
// much of the payload as one network read brought, with the chunked
// framing already taken off and the arrival stamped. The SSE parser works
// on those views directly, so a token costs one pass over its bytes in one
// buffer instead of a copy through a chain of readers; Read serves
// everything else (whole bodies, error excerpts, the drain after [DONE]).
//
// Only its owner reads and closes it; interrupt, from any goroutine, makes
// a blocked read fail by closing the connection, and Close (by the owner,
// after the reads stopped) gives the connection back to fasthttp's pool
// when the body was read to its end, or closes it.
type connBody struct {
	in      readBuf
	conn    net.Conn     // what interrupt closes (TLS or plain)
	watched *watchedConn // stamps arrivals; nil: stamp when a view is handed out
	clock   *Clock
	release func(reuse bool)

	framing framing
	left    int64 // payload bytes left in the chunk or sized body
	inChunk bool  // a chunk's data was read: its CRLF comes next
	limit   int64 // MaxResponseSize
	read    int64 // payload bytes handed out
	keep    bool  // the connection may be reused once the body has ended
	eof     bool  // the body ended cleanly
	err     error // the first error, io.EOF included: every later call gets it
	rest    []byte

	interrupted atomic.Bool
}

var bodyPool = sync.Pool{New: func() any { return new(connBody) }}

// next returns the body's next bytes (a view valid until the following
// call) and when the network read that brought the last of them returned.
// At the end it returns io.EOF; a cut or broken body its error.
func (b *connBody) next() ([]byte, int64, error) {
	if b.err != nil {
		return nil, 0, b.err
	}
	v, err := b.view()
	if err == nil && b.limit > 0 && b.read+int64(len(v)) > b.limit {
		err = errResponseSize(b.limit)
	}
	if err != nil {
		b.err = err
		return nil, 0, err
	}
	b.read += int64(len(v))
	return v, b.stamp(), nil
}

func (b *connBody) stamp() int64 {
	if b.watched != nil {
		return b.watched.lastRead
	}
	return b.clock.Now()
}

// view takes the buffered payload, reading once from the network when the
// buffer is empty.
func (b *connBody) view() ([]byte, error) {
	for b.left == 0 {
		if b.framing != byChunks {
			b.eof = true
			return nil, io.EOF
		}
		if err := b.chunkHeader(); err != nil {
			return nil, err
		}
	}
	if b.in.buffered() == 0 {
		if _, err := b.in.peek(1); err != nil {
			return nil, b.cut(err)
		}
	}
	n := b.in.buffered()
	if b.framing != byClose {
		n = int(min(int64(n), b.left))
		b.left -= int64(n)
	}
	v, _ := b.in.peek(n)
	b.in.discard(n)
	return v, nil
}

// cut turns the end of the connection into the end of the body when the
// body is delimited by it, and into a truncation otherwise.
func (b *connBody) cut(err error) error {
	if !errors.Is(err, io.EOF) {
		return err
	}
	if b.framing == byClose {
		b.eof = true
		return io.EOF
	}
	return io.ErrUnexpectedEOF
}

// framingError is a chunked body whose framing is broken: a server fault
// of the malformed kind, not a connection that ended.
type framingError struct{ what string }

func (e *framingError) Error() string { return "malformed chunked body: " + e.what }

// maxChunkLine bounds a chunk-size line and a trailer line: a server
// sending kilobytes of chunk extensions is broken, not slow.
const maxChunkLine = 4 << 10

// chunkHeader reads the CRLF that ends the previous chunk's data and the
// next chunk-size line; a last chunk (size 0) is read with its trailer
// and ends the body.
func (b *connBody) chunkHeader() error {
	if b.inChunk {
		crlf, err := b.in.peek(2)
		if err != nil {
			return b.cut(err)
		}
		if crlf[0] != '\r' || crlf[1] != '\n' {
			return &framingError{"chunk data not followed by CRLF"}
		}
		b.in.discard(2)
		b.inChunk = false
	}
	line, err := b.line()
	if err != nil {
		return err
	}
	size, err := chunkSize(line)
	if err != nil {
		return err
	}
	if size == 0 {
		return b.trailer()
	}
	b.left, b.inChunk = size, true
	return nil
}

// line reads one CRLF-terminated line of the chunked framing, without
// its CRLF.
func (b *connBody) line() ([]byte, error) {
	line, err := b.in.readSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull) || len(line) > maxChunkLine:
		return nil, &framingError{"chunk-size or trailer line longer than 4 KiB"}
	case err != nil:
		return nil, b.cut(err)
	case len(line) < 2 || line[len(line)-2] != '\r':
		return nil, &framingError{"line ended by a bare LF"}
	}
	return line[:len(line)-2], nil
}

// chunkSize parses a chunk-size line: hex digits, optional whitespace and
// extensions (";name=value", ignored). A streamed token is one chunk, so
// the common line, up to 15 hex digits alone, is read in one pass.
func chunkSize(line []byte) (int64, error) {
	var n int64
	for i, c := range line {
		d, ok := hexDigit(c)
		if !ok || i == 15 {
			return chunkSizeAny(line)
		}
		n = n<<4 | int64(d)
	}
	if len(line) == 0 {
		return chunkSizeAny(line)
	}
	return n, nil
}

// chunkSizeAny parses any chunk-size line, and says what is wrong with one
// that is not.
func chunkSizeAny(line []byte) (int64, error) {
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimRight(line, " \t")
	if len(line) == 0 {
		return 0, &framingError{"empty chunk size"}
	}
	var n int64
	for _, c := range line {
		d, ok := hexDigit(c)
		if !ok {
			return 0, &framingError{"chunk size " + quoteShort(line) + " is not a hex number"}
		}
		if n > math.MaxInt64>>4 {
			return 0, &framingError{"chunk size " + quoteShort(line) + " overflows"}
		}
		n = n<<4 | int64(d)
	}
	return n, nil
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func quoteShort(b []byte) string {
	const most = 32
	if len(b) > most {
		return "\"" + string(b[:most]) + "…\""
	}
	return "\"" + string(b) + "\""
}

// maxTrailerLines bounds the trailer of a chunked body.
const maxTrailerLines = 100

// trailer reads the trailer fields after the last chunk (ignored) up to
// the blank line that ends the message.
func (b *connBody) trailer() error {
	for range maxTrailerLines {
		line, err := b.line()
		if err != nil {
			return err
		}
		if len(line) == 0 {
			b.eof = true
			return io.EOF
		}
	}
	return &framingError{"more than 100 trailer lines"}
}

// Read serves the body as an io.Reader.
func (b *connBody) Read(p []byte) (int, error) {
	if len(b.rest) == 0 {
		v, _, err := b.next()
		if err != nil {
			return 0, err
		}
		b.rest = v
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

// WriteTo writes the rest of the body to w, view by view. io.Copy uses
// it, so the drain after [DONE] (io.Copy to io.Discard) reads in place:
// without it, io.Discard reads through an 8 KiB buffer from its pool,
// which each finishing stream holds while it waits for the body's last
// chunk — 80 MB when 10,000 streams end together.
func (b *connBody) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for {
		if len(b.rest) == 0 {
			v, _, err := b.next()
			if err == io.EOF {
				return n, nil
			}
			if err != nil {
				return n, err
			}
			b.rest = v
		}
		k, err := w.Write(b.rest)
		n += int64(k)
		b.rest = b.rest[k:]
		if err != nil {
			return n, err
		}
	}
}

// interrupt makes a read blocked on the connection fail; the body can no
// longer be reused. It is safe from any goroutine until Close.
func (b *connBody) interrupt() {
	b.interrupted.Store(true)
	_ = b.conn.Close()
}

// Close gives the connection back: to the pool when the body was read to
// its end on a connection that stays open, else closed. Only the owner
// calls it, once its reads are over (the response's CloseBodyStream).
func (b *connBody) Close() error {
	b.release(b.eof && b.keep && !b.interrupted.Load())
	b.in.release()
	*b = connBody{}
	bodyPool.Put(b)
	return nil
}
