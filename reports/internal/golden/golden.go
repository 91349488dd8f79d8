// Package golden holds the reports' expected outputs: a test compares
// what a Reporter wrote with testdata/golden/<name>, and `go test
// -update` rewrites the files from the current code, as vegeta's
// reporters' tests do. A changed golden file is a changed output users
// see, so it is reviewed in the diff like code.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

// Check fails t when got differs from testdata/golden/name, or writes
// got there under -update.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	if want, ok := Want(t, name, got); ok && !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// Want is testdata/golden/name, for a test that compares it in its own
// way (a first differing line of a large file); under -update it writes
// got there instead and ok is false: there is nothing to compare.
func Want(t testing.TB, name string, got []byte) (want []byte, ok bool) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return nil, false
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	return want, true
}
