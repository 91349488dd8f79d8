//go:build linux

package transport

import (
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"
)

// fullBacklog is the URL of a server that never accepts: a listening
// socket with the shortest accept queue, filled by connections nobody
// accepts, so the kernel drops the SYN of the next connect and it hangs.
func fullBacklog(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	for range 16 {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			return "http://" + addr // the queue is full: a connect now hangs
		}
		t.Cleanup(func() { c.Close() })
	}
	t.Skip("the kernel kept completing connections; no full backlog on this machine")
	return ""
}
