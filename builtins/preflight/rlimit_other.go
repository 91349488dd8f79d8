//go:build !linux

package preflight

import "time"

// supported is false where llmbench cannot bound a child's address space
// (RLIMIT_AS is not enforced, or there is no /proc/self): Guard then
// evaluates in-process only.
const supported = false

func selfExecutable() string { return "" }
func setLimit(int64) error   { return nil }
func physicalMemory() int64  { return 0 }
