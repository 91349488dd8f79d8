//go:build !linux

package transport

import "net"

// closedBeforeRequest cannot ask the kernel here (see unanswered_linux.go):
// a request written as the server closed an idle connection is a reset.
func closedBeforeRequest(net.Conn) bool { return false }
