//go:build !unix

package transport

// awaitReadable does not wait where the socket cannot be peeked at: the
// read that follows waits instead, on a deeper stack.
func (w *watchedConn) awaitReadable() error { return nil }
