//go:build unix

package transport

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// awaitReadable waits until the connection's socket has something to
// read — data, the server's close, an error — without reading it and
// without a buffer, or until the read deadline or the idle watchdog ends
// the wait (errIdle then, as a Read would get). It parks the goroutine a
// few frames deep (the runtime's wait for a readable socket), where a
// Read through fasthttp's header parser and bufio parks 3 KiB deep: a
// request waiting minutes for a queueing server's headers holds a 4 KiB
// stack instead of an 8 KiB one (see Client.sendApart). Any other
// error is left to the read that follows, which meets the same state.
func (w *watchedConn) awaitReadable() error {
	if w.raw == nil {
		return nil
	}
	if w.watch != nil {
		w.waiting.Store(w.clock.Now())
	}
	err := w.raw.Read(w.peekFunc)
	if w.watch != nil && w.waiting.Swap(0) == interrupted {
		_, err = w.afterInterrupt(0, err)
		return err
	}
	return nil
}

// readable is awaitReadable's look at the socket: true when a read would
// not block.
func (w *watchedConn) readable(fd uintptr) bool {
	for {
		_, _, err := syscall.Recvfrom(int(fd), w.peeked[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // the runtime waits for the socket, then asks again
		}
		return true
	}
}

// attachSocket gives w the socket under a plain TCP connection, for the
// waits without a buffer (awaitReadable, fill); other connections (a
// test's pipe) read as they are.
func (w *watchedConn) attachSocket() {
	tc, ok := w.Conn.(*net.TCPConn)
	if !ok {
		return
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return
	}
	// The callbacks are made once here: a method value passed to
	// RawConn.Read would be allocated on every read.
	w.raw, w.peekFunc, w.readFunc = raw, w.readable, w.readInto
}

// fill reads once from the socket into b, as Read does — the idle
// watchdog, the deadlines and a close end it alike, and the arrival is
// stamped — but while the socket is empty b holds no buffer: the read is
// tried with one (readInto), and when it would block an empty b gives its
// buffer back before the goroutine parks, taking one again once the
// runtime sees the socket readable. It makes the same system calls as
// Read.
func (w *watchedConn) fill(b *readBuf) error {
	if w.watch != nil {
		w.waiting.Store(w.waitStart())
	}
	w.into, w.intoErr = b, nil
	before := b.w
	err := w.raw.Read(w.readFunc)
	if err != nil {
		err = w.readError(err)
	} else {
		err = w.intoErr
	}
	w.into, w.intoErr = nil, nil
	n := b.w - before
	w.arrived(n)
	if w.watch != nil && w.waiting.Swap(0) == interrupted {
		_, err = w.afterInterrupt(n, err)
	}
	return err
}

// waitStart is when fill's wait for the server begins, as the idle
// watchdog counts it: at the arrival of the bytes the last read brought,
// when the goroutine has done nothing since but handle them (a body's
// events, microseconds), otherwise now. Idle is then the time since the
// server last sent something, and a stream's token costs one clock read,
// not two.
func (w *watchedConn) waitStart() int64 {
	if w.dataAt != 0 {
		return w.dataAt
	}
	return w.clock.Now()
}

// readInto is fill's read of the socket (a syscall.RawConn callback): true
// when the read is done, with or without data, false to wait. The errno
// is compared as a syscall.Errno: compared as an error, every would-block
// read (one a token) went through the runtime's interface comparison.
func (w *watchedConn) readInto(fd uintptr) bool {
	b := w.into
	b.take()
	for {
		n, err := syscall.Read(int(fd), b.buf[b.w:])
		switch errno, _ := err.(syscall.Errno); {
		case err == nil && n > 0:
			b.w += n
		case err == nil:
			w.intoErr = io.EOF
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EAGAIN:
			if b.r == b.w {
				b.release()
			}
			return false
		default:
			w.intoErr = w.readError(os.NewSyscallError("read", err))
		}
		return true
	}
}

// readError is err as net.Conn's Read reports it. The wait's own errors
// (a deadline, a close) come from RawConn as a "raw-read" *net.OpError.
func (w *watchedConn) readError(err error) error {
	if op, ok := errors.AsType[*net.OpError](err); ok {
		op.Op = "read"
		return op
	}
	return &net.OpError{Op: "read", Net: "tcp", Source: w.LocalAddr(), Addr: w.RemoteAddr(), Err: err}
}
