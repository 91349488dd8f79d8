package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/metrics"
)

// quoted is a double-quoted string as scenarios write gates.
var quoted = regexp.MustCompile(`"([^"\n]*baseline[^"\n]*)"`)

// The baseline gates the shipped scenarios and the docs show as examples
// judge what their sample can: no tail statistic (p95 and above, max)
// against a baseline, which with a run or a few of a few hundred requests
// per side rests on a handful of requests — the regression-verdicts work
// (issue 26) refuses such a gate, and a user copies examples first.
func TestExampleBaselineGatesJudgeNoTail(t *testing.T) {
	files, err := filepath.Glob("../../scenarios/*.star")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../../README.md", "../../docs/ci.md", "../../docs/compare.md", "../../docs/scenarios.md")
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range quoted.FindAllStringSubmatch(string(b), -1) {
			g, err := metrics.ParseGate(m[1])
			if err != nil || !g.Baseline {
				continue
			}
			seen++
			if tail(g.Stat) {
				t.Errorf("%s: example baseline gate %q judges a tail statistic against a baseline", f, m[1])
			}
		}
	}
	if seen == 0 {
		t.Fatal("no example baseline gate found: the pattern no longer matches how examples are written")
	}
}

// tail reports whether stat is p95 or above, or max.
func tail(stat string) bool {
	if stat == "max" {
		return true
	}
	q, ok := strings.CutPrefix(stat, "p")
	if !ok {
		return false
	}
	v, err := strconv.ParseFloat(q, 64)
	return err == nil && v >= 95
}
