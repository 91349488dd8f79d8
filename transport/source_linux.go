package transport

import "syscall"

// ipBindAddressNoPort is Linux's IP_BIND_ADDRESS_NO_PORT (linux/in.h),
// which the syscall package does not name.
const ipBindAddressNoPort = 24

// bindLater lets the kernel choose a bound socket's port at connect, per
// (source, destination) pair, instead of at bind, where one port would be
// taken from the source address's range for every destination alike. A
// socket that refuses the option (a kernel before 4.2) binds as before.
func bindLater(_, _ string, c syscall.RawConn) error {
	return c.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IP, ipBindAddressNoPort, 1)
	})
}
