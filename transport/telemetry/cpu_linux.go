//go:build linux

package telemetry

import "golang.org/x/sys/unix"

// threadCPU is the CPU time the calling OS thread has used, in ns, from
// CLOCK_THREAD_CPUTIME_ID: the kernel's exact per-thread runtime (the same
// accounting getrusage(RUSAGE_THREAD) reports, without its µs rounding and
// its tick-sampled user/system split). It is meaningful only while the
// goroutine is locked to its thread (see onThread).
func threadCPU() (int64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}
