package addrspace

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lowerLimit sets the soft RLIMIT_AS to the address space mapped now plus
// room, unless it is lower already, and returns how to undo it; nil when
// it left the limit alone.
func lowerLimit(room uint64) func() {
	used, ok := mapped()
	if !ok {
		return nil
	}
	var old syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &old) != nil || old.Cur <= used+room {
		return nil
	}
	lowered := syscall.Rlimit{Cur: used + room, Max: old.Max}
	if syscall.Setrlimit(syscall.RLIMIT_AS, &lowered) != nil {
		return nil
	}
	return func() { _ = syscall.Setrlimit(syscall.RLIMIT_AS, &old) }
}

// mapped is this process's mapped address space (VmSize) in bytes.
func mapped() (uint64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
