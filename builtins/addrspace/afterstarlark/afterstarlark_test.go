//go:build linux

package afterstarlark

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.starlark.net/starlark"
)

// childEnv makes the test binary a child that reports its address space
// and its limit instead of running the tests.
const childEnv = "AFTERSTARLARK_REPORT"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		var lim syscall.Rlimit
		_ = syscall.Getrlimit(syscall.RLIMIT_AS, &lim)
		// Starlark still computes with integers, now heap-allocated.
		v, err := starlark.Eval(&starlark.Thread{}, "x", "[i * i for i in range(100)][99] + 2147483647", nil)
		os.Stdout.WriteString(strconv.FormatUint(vmSize(), 10) + " " + strconv.FormatUint(lim.Cur, 10) + " " + valueText(v, err) + "\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func valueText(v starlark.Value, err error) string {
	if err != nil {
		return strconv.Quote(err.Error())
	}
	return v.String()
}

// TestAddressSpaceGrowsWithUse: under a soft address-space limit of
// 6 GiB, a process that imports the interpreter used to start with 4 GiB
// of it already mapped by go.starlark.net (`ulimit -v 6G` killed llmbench
// after 25 MB of real use); now it starts with what the Go runtime maps,
// the user's limit is in force again after start-up, and Starlark
// integers still work.
func TestAddressSpaceGrowsWithUse(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		t.Fatal(err)
	}
	const soft = 6 << 30
	if lim.Max < soft {
		t.Skipf("the hard address-space limit %d is below %d", lim.Max, soft)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=1")
	lowered := syscall.Rlimit{Cur: soft, Max: lim.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lowered); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		t.Fatalf("child said %q", out)
	}
	mapped, _ := strconv.ParseUint(f[0], 10, 64)
	if mapped >= 4<<30 {
		t.Errorf("the child maps %d bytes at start, want less than the 4 GiB go.starlark.net reserves", mapped)
	}
	if f[1] != strconv.Itoa(soft) {
		t.Errorf("the child's soft limit is %s after start-up, want the %d it was given", f[1], soft)
	}
	if f[2] != "2147493448" {
		t.Errorf("Starlark's 99 * 99 + 2147483647 = %s, want 2147493448", f[2])
	}
}

// vmSize is this process's mapped address space in bytes.
func vmSize() uint64 {
	b, _ := os.ReadFile("/proc/self/status")
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
