package runtime

import (
	"syscall"

	"github.com/llmbench/llmbench/runtime/failure"
)

// filesBesideConnections are the descriptors a run needs besides one per
// connection: its output files, the simulator's listener, stdio, the Go
// runtime's own.
const filesBesideConnections = 64

// CheckOpenFiles refuses a load that needs more connections than this
// process may open (RLIMIT_NOFILE, which Go already raises to its hard
// limit): it would otherwise spin through thousands of connect failures
// and a half-written point. An open loop without a cap cannot be judged
// ahead.
func CheckOpenFiles(l Load) error {
	need := max(l.Concurrency, l.MaxConcurrency)
	if need == 0 {
		return nil
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return nil
	}
	if uint64(need)+filesBesideConnections <= lim.Cur {
		return nil
	}
	return failure.Inputf("concurrency %d needs about %d open files, but this process may open %d (ulimit -n; hard limit %d): lower the concurrency or raise the limit",
		need, need+filesBesideConnections, lim.Cur, lim.Max)
}
