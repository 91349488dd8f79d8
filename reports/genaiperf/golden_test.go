package genaiperf

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/reports/internal/golden"
)

// checkGolden compares got with testdata/golden/name (llmbench's own
// expected outputs), naming the first line that differs, or rewrites it
// with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	if want, ok := golden.Want(t, name, got); ok {
		assertSameBytes(t, name, got, want)
	}
}

// reference reads testdata/reference/name: outputs of GenAI-Perf itself,
// never rewritten by -update.
func reference(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "reference", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assertSameBytes fails with the first differing line when got != want.
func assertSameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	g, w := strings.SplitAfter(string(got), "\n"), strings.SplitAfter(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("%s differs at line %d:\n got: %q\nwant: %q", what, i+1, gl, wl)
		}
	}
	t.Fatalf("%s differs", what)
}

// TestReferenceCopiesMatchShared keeps testdata/reference's copies of the
// GenAI-Perf examples identical to the project's shared reference, when
// that folder is beside the repository.
func TestReferenceCopiesMatchShared(t *testing.T) {
	shared := filepath.Join("..", "..", "..", "shared", "reference", "genai-perf-examples")
	if _, err := os.Stat(shared); err != nil {
		t.Skip("shared reference not present")
	}
	for _, name := range []string{
		"example_profile_export_genai_perf.json",
		"example_profile_export_genai_perf.csv",
		"example_profile_export.json",
	} {
		want, err := os.ReadFile(filepath.Join(shared, name))
		if err != nil {
			t.Fatal(err)
		}
		assertSameBytes(t, name, reference(t, name), want)
	}
}
