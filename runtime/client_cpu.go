//go:build unix

package runtime

import "syscall"

// processCPU is the process's CPU time so far (user + system), in
// seconds; ok is false where the system will not say.
func processCPU() (seconds float64, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9, true
}
