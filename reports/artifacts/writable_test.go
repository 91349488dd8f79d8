package artifacts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckDirAndFile(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		err  error
		want string // "" for no error
	}{
		{"existing folder", CheckDir(tmp), ""},
		{"missing folder under a writable one", CheckDir(filepath.Join(tmp, "new", "deeper")), ""},
		{"folder under a file", CheckDir(filepath.Join(file, "out")), "is a file, not a folder"},
		{"folder on a read-only file system", CheckDir("/proc/llmbench-out"), "cannot create /proc/llmbench-out"},
		{"file in an existing folder", CheckFile(filepath.Join(tmp, "gates.xml")), ""},
		{"file in a missing folder", CheckFile(filepath.Join(tmp, "missing", "gates.xml")), "does not exist"},
		{"file that is a folder", CheckFile(tmp), "is a folder"},
		{"file on a read-only file system", CheckFile("/proc/gates.xml"), "cannot write /proc/gates.xml"},
	} {
		switch {
		case c.want == "" && c.err != nil:
			t.Errorf("%s: %v", c.name, c.err)
		case c.want != "" && (c.err == nil || !strings.Contains(c.err.Error(), c.want)):
			t.Errorf("%s: got %v, want an error with %q", c.name, c.err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "new")); !os.IsNotExist(err) {
		t.Errorf("CheckDir created the folder it checked: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, ".llmbench-probe-*")); len(left) > 0 {
		t.Errorf("probe files left behind: %v", left)
	}
}
