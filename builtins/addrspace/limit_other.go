//go:build !linux

package addrspace

// lowerLimit does nothing where there is no /proc/self/status to read the
// mapped address space from.
func lowerLimit(uint64) func() { return nil }
