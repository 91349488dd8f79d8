package main

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/transport/sim"
)

// `llmbench sim --drift` logs the speed factor its start drew, so a user
// can see which start was slow; --drift-seed makes that draw repeatable,
// and a negative σ is refused by name with exit 2.
func TestSimCommandLogsItsDriftFactor(t *testing.T) {
	t.Parallel()
	_, stderr := startSim(t, "--drift", "0.05", "--drift-seed", "7")
	line, err := stderr.ReadString('\n')
	if err != nil {
		t.Fatalf("no log line: %v", err)
	}
	_, after, ok := strings.Cut(line, "factor=")
	if !ok || !strings.Contains(line, "drift_seed=7") {
		t.Fatalf("log line %q lacks drift_seed=7 and factor=", line)
	}
	got, err := strconv.ParseFloat(strings.Fields(after)[0], 64)
	if want := sim.DriftFactor(0.05, 7); err != nil || math.Abs(got-want) > 1e-12 {
		t.Errorf("logged factor %q, want %v", after, want)
	}

	r := runCLI(t, t.TempDir(), "sim", "--drift=-0.05")
	if r.code != 2 || !strings.Contains(r.stderr, "drift must be in [0, 1]") {
		t.Errorf("sim --drift=-0.05: exit %d, %q; want 2 naming drift", r.code, r.stderr)
	}
}
