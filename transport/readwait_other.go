//go:build !unix

package transport

// awaitReadable does not wait where the socket cannot be peeked at: the
// read that follows waits instead, on a deeper stack.
func (w *watchedConn) awaitReadable() error { return nil }

// attachSocket leaves w without a socket to wait on: its body reads hold
// their buffer (see readBuf).
func (w *watchedConn) attachSocket() {}

// fill is never called without a socket (see bufferless); it reads as
// Read does.
func (w *watchedConn) fill(b *readBuf) error {
	b.take()
	n, err := w.Read(b.buf[b.w:])
	b.w += n
	return err
}
