package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cmd/llmbench is wiring (DESIGN.md: kong commands, flags and exit codes;
// the logic lives in the packages that own it). These bounds keep it so:
// a command that grows past them has logic that wants a package. The
// total was 2400 for 12 commands; session 13 added 7 (config,
// create-template, scenario-from-config, process-export-files, history,
// calibrate, ab) and the live-metrics and media flags, their logic in
// runtime/gpconfig, reports/artifacts, reports/regression, runtime/calibrate
// and runtime/ab, their flag structs and help here: about 100 lines each.
const (
	maxWiringLines = 3100
	maxFileLines   = 300
)

func TestCmdStaysWiring(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := strings.Count(string(b), "\n")
		total += n
		if n > maxFileLines {
			t.Errorf("%s has %d lines, more than %d: move what is not wiring into the package that owns it", f, n, maxFileLines)
		}
	}
	if total > maxWiringLines {
		t.Errorf("cmd/llmbench has %d non-test lines, more than %d", total, maxWiringLines)
	}
}
