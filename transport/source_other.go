//go:build !linux

package transport

import "syscall"

// bindLater does nothing off Linux: the port is chosen at bind.
func bindLater(_, _ string, _ syscall.RawConn) error { return nil }
