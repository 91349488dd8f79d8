//go:build !unix

package runtime

// processCPU is unknown where getrusage does not exist.
func processCPU() (float64, bool) { return 0, false }
