//go:build unix

package transport

import (
	"net"
	"syscall"
)

// closedByPeer reports whether an idle keep-alive connection is unusable:
// the server closed it (a FIN or a RST is waiting) or sent something no
// request asked for (a 408, a TLS close_notify). It peeks at the socket
// without blocking and without taking anything, so a connection that is
// merely quiet is left as it was. Go's net/http learns the same from the
// read it keeps pending on every idle connection; fasthttp keeps none, so
// without this a request would be written to a connection the server had
// already dropped and fail after it was sent, when it can no longer be
// told from one the server took and then crashed on.
func closedByPeer(conn net.Conn) bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	closed := false
	var buf [1]byte
	err = raw.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case n > 0 || err == nil: // data, or 0 bytes: the end of the stream
			closed = true
		case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK || err == syscall.EINTR:
			closed = false // nothing waiting: the connection is open and quiet
		default: // ECONNRESET and friends
			closed = true
		}
		return true // done: never wait for the socket to become readable
	})
	return closed || err != nil
}
