//go:build unix

package transport

import "syscall"

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
	sc, ok := w.Conn.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	if w.watch != nil {
		w.waiting.Store(w.clock.Now())
	}
	err = raw.Read(w.readable)
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
