package preflight

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// EnvLimit is the environment variable that sets the limit when the
// --starlark-memory-limit flag is not given.
const EnvLimit = "LLMBENCH_STARLARK_MEMORY_LIMIT"

// EnvCPULimit is the environment variable that sets the CPU limit when
// the --starlark-cpu-limit flag is not given.
const EnvCPULimit = "LLMBENCH_STARLARK_CPU_LIMIT"

// DefaultCPU bounds the processor time of loading, and of check(): two
// minutes is far beyond the second or so the step limit lets Starlark
// itself compute, and leaves room for checking a dataset file of many
// gigabytes.
const DefaultCPU = 2 * time.Minute

// MinLimit is the smallest limit accepted other than 0 (off): below it
// the child cannot load even an empty scenario.
const MinLimit = 64 << 20

// DefaultLimit is 4 GiB, or half the machine's memory when that is less:
// a thousand times what building a large plan takes, and small enough
// that a runaway scenario stops with a message before the kernel kills
// it (or a neighbour) for want of memory.
func DefaultLimit() int64 {
	limit := int64(4 << 30)
	if total := physicalMemory(); total > 0 && total/2 < limit {
		limit = max(total/2, MinLimit)
	}
	return limit
}

var units = []struct {
	suffix string
	size   int64
}{{"tib", 1 << 40}, {"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10},
	{"tb", 1 << 40}, {"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10},
	{"t", 1 << 40}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}, {"b", 1}}

// ParseLimit reads a limit as the flag takes it: a size with a binary
// unit ("4GiB", "512MiB", "2G"; GB and MB are read as GiB and MiB, the
// way memory is sold), plain bytes, or "0"/"off" for no limit.
func ParseLimit(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "0" || t == "off" || t == "none" {
		return 0, nil
	}
	num, scale := t, int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			num, scale = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.size
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || v*float64(scale) > 1<<62 {
		return 0, fmt.Errorf("got %q, want a size such as 4GiB or 512MiB, or 0 for no limit", s)
	}
	n := int64(v * float64(scale))
	if n == 0 {
		return 0, nil
	}
	if n < MinLimit {
		return 0, fmt.Errorf("got %q, want at least %s (or 0 for no limit)", s, FormatSize(MinLimit))
	}
	return n, nil
}

// FormatSize writes bytes in the largest binary unit that keeps it short:
// "4 GiB", "512 MiB", "1.5 GiB".
func FormatSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size {
			v := strconv.FormatFloat(float64(n)/float64(u.size), 'f', 2, 64)
			return strings.TrimSuffix(strings.TrimRight(v, "0"), ".") + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
