package transport

import (
	"net"
	"syscall"
	"unsafe"
)

// tcpCloseWait is Linux's TCP_CLOSE_WAIT (include/net/tcp_states.h): the
// peer's FIN has arrived.
const tcpCloseWait = 8

// closedBeforeRequest reports, for a request written whole on a reused
// connection that then ended without a response byte, whether the server
// had closed the connection before the request reached it — so its
// application never read the request, and sending it again cannot make it
// do the work twice. TCP says so in two ways: the server's FIN arrived
// while part of the request was still unacknowledged (a FIN acknowledges
// everything the server's kernel had received when it was sent, so the
// server closed before it had the whole request), or a reset followed the
// FIN (request bytes reached a socket already closed; Linux then records
// EPIPE, where a reset without a FIN is ECONNRESET). A server that read
// the request and then closed or crashed acknowledged it first, or resets
// without a FIN: neither is taken for this. This is the race left after
// closedWhileIdle: a request written in the instant the server closes an
// idle keep-alive connection.
func closedBeforeRequest(conn net.Conn) bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	_ = raw.Control(func(fd uintptr) {
		var info syscall.TCPInfo
		size := uint32(unsafe.Sizeof(info))
		if _, _, e := syscall.Syscall6(syscall.SYS_GETSOCKOPT, fd, syscall.IPPROTO_TCP, syscall.TCP_INFO,
			uintptr(unsafe.Pointer(&info)), uintptr(unsafe.Pointer(&size)), 0); e != 0 {
			return
		}
		soErr, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_ERROR)
		closed = info.State == tcpCloseWait && info.Unacked > 0 || err == nil && syscall.Errno(soErr) == syscall.EPIPE
	})
	return closed
}
