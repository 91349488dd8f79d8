package engine

import (
	"syscall"

	"github.com/llmbench/llmbench/runtime/plan"
)

// FilesBesideConnections are the descriptors a run needs besides one per
// connection: its output files, the simulator's listener, stdio, the Go
// runtime's own.
const FilesBesideConnections = 64

// OpenFiles is this process's open-file limit (RLIMIT_NOFILE: soft, hard);
// ok is false when it cannot be read.
func OpenFiles() (cur, hard uint64, ok bool) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, 0, false
	}
	return lim.Cur, lim.Max, true
}

// maxOpenLoopConns is the most connections an open loop without
// max_concurrency opens, however high the open-file limit: the client's
// connection pool for such a loop, and about half the ~28k ephemeral ports
// one source address has towards one server.
const maxOpenLoopConns = 16384

// InFlightBound is the most requests (of a conversation: sessions) an
// open loop or replay keeps in flight: its max_concurrency, or by default
// as many connections as the process may open beside its other files, the
// count CheckOpenFiles judges a cap by (RLIMIT_NOFILE − 64), at most
// maxOpenLoopConns. Without a cap, an arrival that finds the bound reached
// is dropped, as k6 drops iterations, and counted (Result.Dropped): the
// schedule of the others stays as planned and a server that stops
// answering costs bounded memory, where a goroutine per arrival grew
// without bound until the requests timed out. A closed loop is bounded by
// its concurrency.
func InFlightBound(l plan.Load) int {
	if l.MaxConcurrency > 0 {
		return l.MaxConcurrency
	}
	cur, _, ok := OpenFiles()
	if !ok || cur > maxOpenLoopConns+FilesBesideConnections {
		return maxOpenLoopConns
	}
	return max(int(cur)-FilesBesideConnections, 1)
}
