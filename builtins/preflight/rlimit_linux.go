package preflight

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"
)

// supported: Linux enforces RLIMIT_AS and has /proc/self.
const supported = true

// selfExecutable is the running binary itself, even when its file has
// been replaced since it started (a new build installed during a long
// run): the child must speak the same request format.
func selfExecutable() string { return "/proc/self/exe" }

// setLimits caps this process's address space at what it maps now plus
// memory, so the budget is the evaluation's own whatever the Go runtime
// reserved at start-up (go.starlark.net's 4 GB for small integers no
// longer is: see package addrspace), and its processor time at what it has used
// plus cpu. The Go garbage collector is told a soft limit just under the
// memory budget, so a scenario whose live memory fits is collected rather
// than stopped by garbage it has already dropped. A lower limit the user
// set already stays.
func setLimits(memory int64, cpu time.Duration) error {
	if memory > 0 {
		used, err := addressSpace()
		if err != nil {
			return fmt.Errorf("%s: %w", ChildCommand, err)
		}
		if err := lower(syscall.RLIMIT_AS, uint64(used)+uint64(memory)); err != nil {
			return err
		}
		debug.SetMemoryLimit(memory - memory/8)
	}
	if cpu > 0 {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			return fmt.Errorf("%s: %w", ChildCommand, err)
		}
		used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		// Soft and hard limit alike: the kernel sends SIGKILL at the hard
		// one, where the SIGXCPU of a soft one is ignored by Go programs.
		if err := lower(syscall.RLIMIT_CPU, uint64((used+cpu+time.Second-1)/time.Second)); err != nil {
			return err
		}
	}
	return nil
}

// lower sets resource's soft and hard limits to limit unless they are
// lower already.
func lower(resource int, limit uint64) error {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(resource, &old); err != nil {
		return fmt.Errorf("%s: %w", ChildCommand, err)
	}
	lim := syscall.Rlimit{Cur: min(limit, old.Cur), Max: min(limit, old.Max)}
	if err := syscall.Setrlimit(resource, &lim); err != nil {
		return fmt.Errorf("%s: setting a limit: %w", ChildCommand, err)
	}
	return nil
}

// addressSpace is this process's mapped address space (VmSize), in bytes.
func addressSpace() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmSize:")); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte("kB")))), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/self/status: VmSize: %w", err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("/proc/self/status has no VmSize")
}

// physicalMemory is the machine's RAM in bytes, 0 when unknown.
func physicalMemory() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
