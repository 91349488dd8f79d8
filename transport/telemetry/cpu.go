package telemetry

import (
	"runtime"
	"time"
)

// onThread runs f and returns the CPU time it used, measured as the
// thread CPU clock's advance while the goroutine is locked to its OS
// thread. Locked, no other goroutine can run on that thread, and when f
// blocks (waiting for the body) the thread sleeps, so the difference is
// f's own work: reading the body off the socket and parsing it, GC assist
// included. Process CPU (getrusage RUSAGE_SELF) around f would instead
// count whatever the load generator's goroutines did meanwhile. Not
// counted: the request write and response header read, which net/http
// does on its connection goroutines, and background GC marking; the
// benchmarks (BenchmarkParseDCGM, BenchmarkScrapeSim) give the whole
// cost including those. Zero where the platform has no thread clock.
func onThread(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, ok0 := threadCPU()
	f()
	t1, ok1 := threadCPU()
	if !ok0 || !ok1 || t1 < t0 {
		return 0
	}
	return time.Duration(t1 - t0)
}
