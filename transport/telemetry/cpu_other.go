//go:build !linux

package telemetry

// threadCPU has no portable per-thread CPU clock to read outside Linux,
// so scrape CPU is reported as zero there rather than guessed.
func threadCPU() (int64, bool) { return 0, false }
