package transport

import (
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// errIdle is the error a read gets when the idle watchdog ended it. It is a
// timeout (fasthttp reports a timed-out header read as its ErrTimeout, not
// as a closed connection that Send would retry), and the connection
// remembers it, since fasthttp does not keep every error's chain.
var errIdle = idleError{}

type idleError struct{}

func (idleError) Error() string   { return "no data from the server within the idle timeout" }
func (idleError) Timeout() bool   { return true }
func (idleError) Temporary() bool { return false }

// interrupted marks a watchedConn read the watchdog has ended.
const interrupted = -1

// watchedConn is a client connection that knows whether it is waiting for
// the server. Every byte of a response — the status line and headers, a
// streamed or a whole body — arrives through its Read, so one idle
// watchdog covers the wait for the headers, a stalled stream and a stalled
// non-streamed body alike, while a body that keeps trickling in is never
// cut. A read costs two atomic stores; the watchdog scans from one
// goroutine, so no timer is reset per chunk.
type watchedConn struct {
	net.Conn
	// requests counts the requests written on the connection, so a
	// keep-alive connection is told from a fresh one, and received the
	// bytes read from it, so a request's answer is told from none. Only
	// the goroutine holding the connection (fasthttp's pool hands it over)
	// touches them.
	requests int
	received int64
	// lastRead is when the last Read that returned data did (clock ns):
	// the arrival stamp of what it brought. Only the reading goroutine
	// touches it.
	lastRead int64
	// dataAt is lastRead while the goroutine handles what that read
	// brought, 0 once anything else happened (a read without data, a new
	// request): fill's wait for the server counts from it, which spares
	// a clock read a token.
	dataAt int64
	clock  *Clock
	watch  *watchdog // nil: no idle timeout
	// waiting is when the pending Read began (clock ns), 0 when none is
	// pending, interrupted once the watchdog ended it.
	waiting atomic.Int64
	// idled is set when a read on the connection was ended as idle.
	idled atomic.Bool
	// mu orders the watchdog's interrupt with a Read that returned data at
	// the same moment, which must get fasthttp's own deadline back.
	mu       sync.Mutex
	deadline time.Time // the read deadline fasthttp asked for
	closed   sync.Once
	onClose  func(*watchedConn)
	// peeked is where awaitReadable's peek at the socket puts a byte it
	// leaves there.
	peeked [1]byte
	// raw is the socket of a plain TCP connection (attachSocket), nil for
	// any other; peekFunc and readFunc are its callbacks for awaitReadable
	// and fill, and into and intoErr fill's buffer and result.
	raw                syscall.RawConn
	peekFunc, readFunc func(fd uintptr) bool
	into               *readBuf
	intoErr            error
}

func (w *watchedConn) Read(b []byte) (int, error) {
	if w.watch != nil {
		w.waiting.Store(w.clock.Now())
	}
	n, err := w.Conn.Read(b)
	w.arrived(n)
	if w.watch != nil && w.waiting.Swap(0) == interrupted {
		return w.afterInterrupt(n, err)
	}
	return n, err
}

// arrived notes a read of n bytes: their arrival stamp (lastRead) and
// count, and whether the next fill may count its wait from that stamp.
func (w *watchedConn) arrived(n int) {
	if n <= 0 {
		w.dataAt = 0
		return
	}
	w.lastRead = w.clock.Now()
	w.dataAt = w.lastRead
	w.received += int64(n)
}

// afterInterrupt settles a read the watchdog ended: one that still got
// data was not idle after all and gets the request's deadline back; any
// other is the idle timeout.
func (w *watchedConn) afterInterrupt(n int, err error) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil {
		_ = w.Conn.SetReadDeadline(w.deadline)
		return n, nil
	}
	w.idled.Store(true)
	return n, errIdle
}

// interrupt ends the read that has been pending since since, unless it has
// returned meanwhile: a read deadline in the past wakes it at once.
func (w *watchedConn) interrupt(since int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waiting.CompareAndSwap(since, interrupted) {
		_ = w.Conn.SetReadDeadline(time.Unix(1, 0))
	}
}

func (w *watchedConn) SetReadDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deadline = t
	return w.Conn.SetReadDeadline(t)
}

func (w *watchedConn) SetDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deadline = t
	return w.Conn.SetDeadline(t)
}

func (w *watchedConn) Close() error {
	w.closed.Do(func() { w.onClose(w) })
	return w.Conn.Close()
}

// watchdog ends reads that have waited for the server longer than idle.
type watchdog struct {
	idle  time.Duration
	clock *Clock
	mu    sync.Mutex
	conns map[*watchedConn]struct{}
	quit  chan struct{}
}

func newWatchdog(idle time.Duration, clock *Clock) *watchdog {
	w := &watchdog{idle: idle, clock: clock, conns: map[*watchedConn]struct{}{}, quit: make(chan struct{})}
	go w.run(min(max(idle/4, 10*time.Millisecond), time.Second))
	return w
}

func (w *watchdog) add(c *watchedConn) {
	w.mu.Lock()
	w.conns[c] = struct{}{}
	w.mu.Unlock()
}

func (w *watchdog) remove(c *watchedConn) {
	w.mu.Lock()
	delete(w.conns, c)
	w.mu.Unlock()
}

func (w *watchdog) stop() { close(w.quit) }

func (w *watchdog) run(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-w.quit:
			return
		case <-t.C:
			w.scan()
		}
	}
}

func (w *watchdog) scan() {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.clock.Now()
	for c := range w.conns {
		if since := c.waiting.Load(); since > 0 && now-since > int64(w.idle) {
			c.interrupt(since)
		}
	}
}
